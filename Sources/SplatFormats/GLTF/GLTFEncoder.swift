import Foundation
import SplatCore

/// Writes a scene as glTF 2.0 with `KHR_gaussian_splatting` (`formats-gltf.md` 15): `.glb`, or
/// `.gltf` with the binary buffer in a base64 data URI; plain float attributes (SH up to degree
/// 3, linear SCALE, accessor min/max on POSITION, COLOR_0 for fallback viewers), or the SPZ
/// payload form (`KHR_gaussian_splatting_compression_spz_2`, gzip SPZ v3 by `SPZEncoder`, with
/// placeholder accessors).
///
/// Frame: glTF is LUF (13.1). The values are written as they are, so convert the scene to LUF
/// first (`FrameDecision(sourceFrame: decided, …, renderFrame: .luf).apply(to:)`), after
/// flattening any node instances (`SceneTransform.flatten`); a scene with non-trivial
/// `nodeInstances` is refused. No node transform is written.
public enum GLTFEncoder {
    public enum Container: String, Sendable, CaseIterable {
        /// Binary glTF: JSON chunk and BIN chunk in one file.
        case glb
        /// JSON text with the buffer as a `data:` URI (our reader's JSON limit, 64 MiB by
        /// default, then bounds the scene to about 48 MiB of attributes).
        case gltf
    }

    public enum Compression: String, Sendable, CaseIterable {
        case none
        /// The SPZ-compressed form of 15.3.
        case spz
    }

    public enum ColorSpace: String, Sendable, CaseIterable {
        case srgbRec709Display = "srgb_rec709_display"
        case linRec709Display = "lin_rec709_display"
    }

    public struct Options: Sendable, Equatable {
        public var container: Container
        public var compression: Compression
        /// What the DC/SH colours are (every other format decodes as sRGB display values).
        public var colorSpace: ColorSpace
        /// `asset.generator`.
        public var generator: String
        /// Write the optional COLOR_0 (u8 RGBA) for viewers without the extension.
        public var writesColor: Bool
        /// SPZ position fractional bits; nil picks 12 or fewer so the scene fits the 24-bit range.
        public var spzFractionalBits: Int?

        public init(container: Container = .glb, compression: Compression = .none, colorSpace: ColorSpace = .srgbRec709Display,
                    generator: String = "splatrender", writesColor: Bool = true, spzFractionalBits: Int? = nil) {
            self.container = container
            self.compression = compression
            self.colorSpace = colorSpace
            self.generator = generator
            self.writesColor = writesColor
            self.spzFractionalBits = spzFractionalBits
        }
    }

    public struct Output: Sendable {
        /// The whole `.glb` or `.gltf` file.
        public var bytes: [UInt8]
        /// Splats written (non-finite ones are dropped).
        public var count: Int
        /// What was not written as it was: dropped splats, SH above degree 3, an antialiased
        /// model in the plain form, coarser SPZ positions.
        public var warnings: [String]
        /// Where the SPZ payload (an SPZ file of its own) lies in `bytes`: GLB with `.spz` only.
        public var payload: Range<Int>?
    }

    /// Encodes `scene` (values in LUF). Throws `empty` when no splat can be written and
    /// `invalid_argument` for unflattened node instances or SPZ options out of range.
    public static func encode(_ scene: SplatScene, options: Options = Options(), threads: Int? = nil) throws(SplatError) -> Output {
        if let facts = scene.nodeInstances, !facts.isTrivial {
            throw SplatError(.invalidArgument, "the scene has node instances; flatten it (SceneTransform.flatten) before writing glTF")
        }
        guard scene.count > 0 else { throw SplatError(.empty, "the scene has no splats to write") }
        var warnings: [String] = []
        let degree = min(scene.shDegree, 3)
        if scene.shDegree > 3 {
            warnings.append("SH degree \(scene.shDegree) written as degree 3 (KHR_gaussian_splatting defines no degree 4)")
        }
        let selection = GLTFSplatSelection(scene, degree: degree, threads: threads)
        guard selection.count > 0 else { throw SplatError(.empty, "every splat has a value glTF cannot store (NaN or infinity)") }
        if selection.dropped > 0 {
            warnings.append("non_finite: \(selection.dropped) splat(s) with values glTF cannot store (NaN or infinity) not written")
        }
        var layout = GLTFWriteLayout(count: selection.count, degree: degree, minimum: selection.minimum, maximum: selection.maximum,
                                     colorSpace: options.colorSpace, writesColor: options.writesColor)
        let bin: [UInt8]
        switch options.compression {
        case .none:
            if scene.model == .antialiased {
                warnings.append("the antialiased (mip-splatting) model has no place in plain KHR_gaussian_splatting; written as default")
            }
            bin = layout.plainBuffer(scene, selection, threads: threads)
        case .spz:
            bin = try spzPayload(scene, selection, degree: degree, fractionalBits: options.spzFractionalBits, warnings: &warnings)
            layout.payloadBytes = bin.count
        }
        let document = layout.document(generator: options.generator, dataURI: options.container == .gltf ? bin : nil)
        // Sorted keys: the same scene gives the same bytes on every run.
        guard let json = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw SplatError(.invalidArgument, "the glTF JSON could not be serialized")
        }
        let bytes = options.container == .glb ? glb(json: Array(json), bin: bin) : Array(json)
        var payload: Range<Int>?
        if options.container == .glb, options.compression == .spz {
            let start = 12 + 8 + ((json.count + 3) & ~3) + 8
            payload = start..<(start + bin.count)
        }
        return Output(bytes: bytes, count: selection.count, warnings: warnings, payload: payload)
    }

    /// The SPZ payload (gzip v3, raw values, no coordinate-system record: 13.3, 15.3) of the kept splats.
    private static func spzPayload(_ scene: SplatScene, _ selection: GLTFSplatSelection, degree: Int, fractionalBits: Int?,
                                   warnings: inout [String]) throws(SplatError) -> [UInt8] {
        let source: SplatScene
        if selection.dropped == 0, degree == scene.shDegree {
            source = scene
        } else {
            source = SplatScene(count: selection.count, shDegree: degree)
            source.model = scene.model
            let per = scene.shFloatsPerSplat, outPer = source.shFloatsPerSplat
            for (chunk, indices) in selection.kept.enumerated() {
                for (j, i) in indices.enumerated() {
                    let o = selection.starts[chunk] + j, i = Int(i)
                    for c in SplatScene.Column.allCases { source.columnBase(c)[o] = scene.columnBase(c)[i] }
                    if outPer > 0 { (source.sh.baseAddress! + o * outPer).update(from: scene.sh.baseAddress! + i * per, count: outPer) }
                }
            }
        }
        // 24-bit fixed point holds ±2^(23 − bits): fewer fractional bits for a wider scene.
        let extent = max((-selection.minimum).max(), selection.maximum.max(), 0)
        var bits = 12
        while bits > 0, Double(extent) >= Double(1 << (23 - bits)) { bits -= 1 }
        if let fractionalBits { bits = fractionalBits } else if bits < 12 {
            warnings.append("positions reach \(extent): SPZ fractional bits lowered to \(bits) (step \(1.0 / Double(1 << bits)))")
        }
        return try SPZEncoder.encode(source, options: SPZEncoder.Options(version: 3, fractionalBits: bits))
    }

    /// Header, JSON chunk padded with spaces, BIN chunk padded with zeros (15.1 "GLB").
    private static func glb(json: [UInt8], bin: [UInt8]) -> [UInt8] {
        func padded(_ n: Int) -> Int { (n + 3) & ~3 }
        let total = 12 + 8 + padded(json.count) + 8 + padded(bin.count)
        var out: [UInt8] = []
        out.reserveCapacity(total)
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { out.append(contentsOf: $0) } }
        u32(Int(GLBContainer.magic)); u32(2); u32(total)
        u32(padded(json.count)); u32(Int(GLBContainer.jsonChunk))
        out += json
        out += [UInt8](repeating: 0x20, count: padded(json.count) - json.count)
        u32(padded(bin.count)); u32(Int(GLBContainer.binChunk))
        out += bin
        out += [UInt8](repeating: 0, count: padded(bin.count) - bin.count)
        return out
    }
}
