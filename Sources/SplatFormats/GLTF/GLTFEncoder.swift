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
        /// Write the optional COLOR_0 (u8 RGBA) for viewers without the extension (left out, with
        /// a warning, when it would take the buffer past `DecodeLimits.serviceCeilingBytes`).
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
        // Readers bound each buffer by the decoded-size ceiling (16.1); COLOR_0 makes the plain
        // buffer 4 bytes per splat larger than the model, so near the ceiling it is left out to
        // keep the file readable under default limits.
        if options.compression == .none, options.writesColor, layout.bufferBytes > DecodeLimits.serviceCeilingBytes {
            layout = GLTFWriteLayout(count: selection.count, degree: degree, minimum: selection.minimum, maximum: selection.maximum,
                                     colorSpace: options.colorSpace, writesColor: false)
            warnings.append("COLOR_0 not written: with it the buffer would exceed the \(DecodeLimits.serviceCeilingBytes)-byte decode limit")
        }
        var payloadBytes: [UInt8]?
        switch options.compression {
        case .none:
            if scene.model == .antialiased {
                warnings.append("the antialiased (mip-splatting) model has no place in plain KHR_gaussian_splatting; written as default")
            }
        case .spz:
            payloadBytes = try spzPayload(scene, selection, degree: degree, fractionalBits: options.spzFractionalBits, warnings: &warnings)
            layout.payloadBytes = payloadBytes!.count
        }
        let binCount = payloadBytes?.count ?? layout.bufferBytes
        // The plain buffer is written straight into the file's bytes (it can be most of a gigabyte).
        func fillBIN(_ out: UnsafeMutableRawPointer) {
            if let payloadBytes {
                payloadBytes.withUnsafeBytes { out.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            } else {
                layout.fillPlain(scene, selection, into: out, threads: threads)
            }
        }
        var dataURI: [UInt8]?
        if options.container == .gltf {
            var bin = [UInt8](repeating: 0, count: binCount)
            bin.withUnsafeMutableBytes { fillBIN($0.baseAddress!) }
            dataURI = bin
        }
        let document = layout.document(generator: options.generator, dataURI: dataURI)
        // Sorted keys: the same scene gives the same bytes on every run.
        guard let json = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw SplatError(.invalidArgument, "the glTF JSON could not be serialized")
        }
        guard options.container == .glb else {
            if json.count > DecodeLimits().maxMetaJsonBytes {
                warnings.append(".gltf is \(json.count) bytes, over the default \(DecodeLimits().maxMetaJsonBytes)-byte JSON limit of readers (ours included); .glb has no such limit")
            }
            return Output(bytes: Array(json), count: selection.count, warnings: warnings, payload: nil)
        }
        let (bytes, binStart) = glb(json: Array(json), binCount: binCount, fill: fillBIN)
        let payload = payloadBytes.map { binStart..<(binStart + $0.count) }
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

    /// Header, JSON chunk padded with spaces, BIN chunk padded with zeros (15.1 "GLB"); `fill`
    /// writes the BIN contents in place. Returns the file and where the BIN contents start.
    private static func glb(json: [UInt8], binCount: Int, fill: (UnsafeMutableRawPointer) -> Void) -> ([UInt8], Int) {
        func padded(_ n: Int) -> Int { (n + 3) & ~3 }
        let binStart = 12 + 8 + padded(json.count) + 8
        let total = binStart + padded(binCount)
        var out = [UInt8](repeating: 0, count: total)
        out.withUnsafeMutableBytes { raw in
            func u32(_ v: Int, at offset: Int) { raw.storeBytes(of: UInt32(v).littleEndian, toByteOffset: offset, as: UInt32.self) }
            u32(Int(GLBContainer.magic), at: 0); u32(2, at: 4); u32(total, at: 8)
            u32(padded(json.count), at: 12); u32(Int(GLBContainer.jsonChunk), at: 16)
            json.withUnsafeBytes { raw.baseAddress!.advanced(by: 20).copyMemory(from: $0.baseAddress!, byteCount: json.count) }
            for i in (20 + json.count)..<(binStart - 8) { raw[i] = 0x20 }
            u32(padded(binCount), at: binStart - 8); u32(Int(GLBContainer.binChunk), at: binStart - 4)
            fill(raw.baseAddress!.advanced(by: binStart))
        }
        return (out, binStart)
    }
}
