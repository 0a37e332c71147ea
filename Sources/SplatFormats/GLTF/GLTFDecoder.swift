import SplatCore

/// Decodes glTF 2.0 (`.gltf` JSON or `.glb`) with `KHR_gaussian_splatting`, plain or with an SPZ
/// payload under any of its three extension names (`formats-gltf.md` sections 11–16).
///
/// The scene holds the **stored** values: every splat primitive once, in mesh and primitive
/// order, in the primitive's local frame. The node hierarchy is reported, not applied:
/// `scene.nodeInstances` lists the default scene's instances and `SceneTransform.flatten` turns
/// them into the drawn scene (do that before the frame conversion and rendering). Frame facts:
/// `declaredFrame = LUF` (glTF's axes, like an SPZ coordinate-system record; RDF for files of
/// splat-transform < 2.0.0), `conventionalFrame = LUF`. Header details carry the container,
/// primitives, attributes, compression, colour space and node transforms for `info`.
public enum GLTFDecoder {
    /// How SCALE values are stored (12.3): `auto` decides per primitive.
    public enum ScaleEncoding: String, Sendable, CaseIterable {
        case auto, linear, log
    }

    public struct Options: Sendable, Equatable {
        /// The `--gltf-scale` override of the SCALE rule.
        public var scaleEncoding: ScaleEncoding
        /// Worker threads for reading accessors (nil = all cores).
        public var threads: Int?

        public init(scaleEncoding: ScaleEncoding = .auto, threads: Int? = nil) {
            self.scaleEncoding = scaleEncoding
            self.threads = threads
        }
    }

    /// Validates the document, every splat primitive's accessors, views and buffers (declared
    /// sizes; SPZ payload headers are read) and the node hierarchy, without reading attribute
    /// data. `folder` is where relative buffer URIs resolve (nil for bytes from memory or
    /// standard input: such URIs are then `bad_meta`). The decoded-size ceiling is applied by
    /// `decode` (compare `declaredDecodedBytes` and the `instanced_count` detail yourself).
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, folder: String?,
                                  limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        let plan = try GLTFScenePlan(bytes, file: file, folder: folder, limits: limits)
        let model: SplatModel = plan.primitives.contains { primitive in
            if case .spz(let p) = primitive.source { return p.header.model == .antialiased }
            return false
        } ? .antialiased : .default
        var header = plan.header(model: model, warnings: plan.warnings + plan.buffers.warnings, scaleEncodings: [])
        // An SPZ payload is decoded into a scene of its own (with its decoder's scratch) and
        // copied in, one payload at a time (measured: the 51,887-splat SPZ payload of
        // flywave-aerial-tile1_2.glb peaked above an estimate that had no decode term).
        let payloadScratch = plan.primitives.compactMap { primitive -> Int? in
            guard case .spz(let p) = primitive.source else { return nil }
            let scene = DecodeLimits.decodedBytes(count: p.header.count, degree: limits.keptDegree(p.header.shDegree)) ?? Int.max
            return CheckedSize.add(p.header.decodeScratchBytes, scene) ?? Int.max
        }.max() ?? 0
        // External and data-URI buffers and the parsed JSON tree are held for the whole decode,
        // beside the input the estimate already counts.
        header.decodeScratchBytes = [payloadScratch, plan.buffers.heldOutsideInputBytes, plan.document.parsedBytes]
            .reduce(0) { CheckedSize.add($0, $1) ?? Int.max }
        return header
    }

    /// Decodes the stored splats. Both the stored and the instanced size are checked against
    /// `limits` before any splat array is allocated.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, folder: String?, limits: DecodeLimits,
                              options: Options = Options()) throws(SplatError) -> DecodedScene {
        let plan = try GLTFScenePlan(bytes, file: file, folder: folder, limits: limits)
        return try withExtendedLifetime(plan.buffers) { () throws(SplatError) -> DecodedScene in
            try decode(plan, file: file, limits: limits, options: options)
        }
    }

    private static func decode(_ plan: GLTFScenePlan, file: String?, limits: DecodeLimits,
                               options: Options) throws(SplatError) -> DecodedScene {
        let kept = try limits.checkScene(count: plan.count, fileDegree: plan.shDegree, file: file)
        let facts = plan.nodeInstances
        guard let instanced = facts.instancedCount else {
            throw SplatError(.tooLarge, "node instances overflow a 64-bit splat count", file: file, field: "nodes")
        }
        if instanced > plan.count {
            try limits.checkScene(count: instanced, fileDegree: plan.shDegree, file: file)
        }
        var warnings = plan.warnings
        var model = SplatModel.default
        var encodings: [String?] = []
        // An SPZ payload goes into the model directly (14.2); each is decoded when its turn
        // comes, so only one payload scene is alive beside the result.
        func payloadScene(_ primitive: GLTFSplatPrimitive, _ payload: GLTFSplatPrimitive.Payload) throws(SplatError) -> SplatScene {
            let bytes = try plan.buffers.bytes(payload.view.buffer)
            let range = payload.view.offset..<(payload.view.offset + payload.view.length)
            let spz = try SPZDecoder.decode(UnsafeRawBufferPointer(rebasing: bytes[range]), file: file, limits: limits).scene
            if spz.model == .antialiased { model = .antialiased }
            if let frame = spz.declaredFrame {
                warnings.append("\(primitive.label): payload declares SPZ coordinate system \(frame.name); ignored, the payload is taken to be in the glTF frame")
            }
            warnings += spz.warnings.map { "\(primitive.label): SPZ: \($0)" }
            return spz
        }
        let scene: SplatScene
        if plan.primitives.count == 1, case .spz(let payload) = plan.primitives[0].source {
            // One SPZ primitive: its decode is the scene, no copy.
            scene = try payloadScene(plan.primitives[0], payload)
            encodings = [nil]
        } else {
            scene = SplatScene(count: plan.count, shDegree: kept)
            let reader = GLTFPrimitiveReader(scene: scene, buffers: plan.buffers, fields: plan.document.fields, threads: options.threads)
            for (i, primitive) in plan.primitives.enumerated() {
                switch primitive.source {
                case .accessors(let attributes):
                    let scale = try reader.read(primitive, attributes, at: plan.starts[i], generator: plan.document.generator,
                                                scaleOption: options.scaleEncoding, warnings: &warnings)
                    encodings.append("\(scale.encoding) (\(scale.reason))")
                case .spz(let payload):
                    reader.copy(try payloadScene(primitive, payload), to: plan.starts[i])
                    encodings.append(nil)
                }
            }
        }
        scene.model = model
        scene.declaredFrame = plan.declaredFrame
        scene.conventionalFrame = .luf
        scene.colorSpace = plan.colorSpace
        scene.cameraHints = nil
        scene.nodeInstances = facts
        warnings += plan.buffers.warnings
        scene.warnings = warnings
        return DecodedScene(scene: scene, header: plan.header(model: model, warnings: warnings, scaleEncodings: encodings))
    }

    /// (major, minor, patch) of a splat-transform generator string (12.3 rule 3, 13.1).
    static func splatTransformVersion(_ generator: String?) -> [Int]? {
        guard let generator, generator.hasPrefix("splat-transform ") else { return nil }
        let rest = generator.dropFirst("splat-transform ".count)
        var numbers: [Int] = []
        var digits = ""
        for ch in rest {
            if ch.isASCII, ch.isNumber { digits.append(ch); continue }
            guard !digits.isEmpty, let n = Int(digits) else { return nil }
            numbers.append(n)
            digits = ""
            if numbers.count == 3 { break }
            guard ch == "." else { return nil }
        }
        if numbers.count < 3, !digits.isEmpty, let n = Int(digits) { numbers.append(n) }
        return numbers.count == 3 ? numbers : nil
    }
}
