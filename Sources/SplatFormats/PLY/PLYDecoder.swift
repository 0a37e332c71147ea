import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Decodes 3D Gaussian Splatting PLY files (`formats.md` 3) in all three encodings and all
/// eight scalar types. Properties are found by name; `f_rest_*` (channel-major in the file)
/// becomes the model's coefficient-major `sh[i][k][c]`; the opacity logit becomes alpha through
/// a sigmoid in Double; quaternions are normalized last. Values stay in the file's frame (RDF by
/// convention). A file whose vertex element has `packed_position` is handed to
/// `CompressedPLYDecoder`.
///
/// The common layout (binary little-endian, every vertex property a float) takes a fast path
/// that transposes rows straight into the scene's columns on all cores.
public enum PLYDecoder {
    /// Reads the header only: count, SH degree (from the `f_rest_*` count) and model (from the
    /// comments, or 2DGS when `scale_2` is absent). Never touches the body.
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        let header = try PLYHeader.parse(bytes, file: file, limits: limits)
        if header.isCompressed {
            return try CompressedPLYDecoder.readHeader(parsed: header, file: file)
        }
        let layout = try PLYGaussianLayout(header, file: file)
        guard layout.count > 0 else {
            throw SplatError(.empty, "element vertex has 0 rows", file: file, field: "element vertex")
        }
        return sceneHeader(header, layout)
    }

    /// Decodes the whole file. Checks the declared size against `limits` from the header before
    /// allocating; honours `limits.maxShDegree` by keeping the first coefficients per channel.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let header = try PLYHeader.parse(bytes, file: file, limits: limits)
        if header.isCompressed {
            return try CompressedPLYDecoder.decode(parsed: header, bytes, file: file, limits: limits)
        }
        let layout = try PLYGaussianLayout(header, file: file)
        let n = layout.count
        guard n > 0 else {
            throw SplatError(.empty, "element vertex has 0 rows", file: file, field: "element vertex")
        }
        let kept = try limits.checkScene(count: n, fileDegree: layout.fileDegree, file: file)
        var info = sceneHeader(header, layout)

        let scene: SplatScene
        let zeros: QuaternionNormalization.ZeroCount
        switch header.format {
        case .ascii:
            let vertex = header.elements[layout.vertexIndex]
            // Every token takes at least one byte and one separator: refuse an impossible
            // count before allocating for it.
            let tokens = CheckedSize.mul(n, vertex.properties.count)
            let left = bytes.count - header.bodyOffset
            if let tokens, tokens > 0, tokens - 1 > left / 2 {
                throw SplatError(.truncated, "element vertex needs \(tokens) ASCII values, only \(left) bytes left",
                                 file: file, offset: header.bodyOffset, field: "element vertex")
            }
            var stream = PLYASCIITokens(bytes, from: header.bodyOffset, file: file)
            try skipASCIIElements(header, before: layout.vertexIndex, &stream)
            scene = SplatScene(count: n, shDegree: kept)
            zeros = try decodeASCII(&stream, header: header, layout: layout, into: scene)
        case .binaryLittleEndian, .binaryBigEndian:
            let offset = try PLYBodyReader.binaryElementOffset(header, target: layout.vertexIndex, bytes: bytes, file: file)
            guard let base = bytes.baseAddress else {
                throw SplatError(.truncated, "no body", file: file, offset: offset)
            }
            scene = SplatScene(count: n, shDegree: kept)
            if layout.isAllFloatLittleEndian(header) {
                zeros = decodeFloatRows(base + offset, header: header, layout: layout, into: scene)
            } else {
                zeros = decodeBinaryRows(base + offset, header: header, layout: layout, into: scene)
            }
        }
        try CancellationToken.checkCurrent("while decoding PLY rows")

        scene.model = layout.model
        scene.conventionalFrame = .rdf
        if let w = zeros.warning { info.warnings.append(w) }
        scene.warnings = info.warnings
        return DecodedScene(scene: scene, header: info)
    }

    // MARK: - Header facts

    private static func sceneHeader(_ header: PLYHeader, _ layout: PLYGaussianLayout) -> SceneHeader {
        var details = [
            "ply_format": header.format.rawValue,
            "vertex_properties": String(header.elements[layout.vertexIndex].properties.count),
            "elements": header.elements.map { "\($0.name) \($0.count)" }.joined(separator: ", "),
        ]
        if !header.comments.isEmpty { details["comments"] = header.comments.joined(separator: "\n") }
        return SceneHeader(format: .ply, count: layout.count, shDegree: layout.fileDegree, model: layout.model,
                           conventionalFrame: .rdf, warnings: layout.warnings, details: details)
    }

    // MARK: - Fast path: little-endian, all floats

    /// Rows per parallel work item: small enough that a chunk's columns stay in cache for the
    /// sigmoid and normalization pass that follows the transpose.
    static let rowsPerChunk = 4096

    private static func decodeFloatRows(_ base: UnsafeRawPointer, header: PLYHeader, layout: PLYGaussianLayout,
                                        into scene: SplatScene) -> QuaternionNormalization.ZeroCount {
        let vertex = header.elements[layout.vertexIndex]
        let stride = 4 * vertex.properties.count
        let columns = SplatScene.Column.allCases
        // Columns to copy (the 2DGS third scale has no source) with their byte offsets in a row.
        var copyOffsets: [Int] = []
        var copyTargets: [UnsafeMutablePointer<Float>] = []
        for c in columns where layout.columnProperty[c.rawValue] >= 0 {
            copyOffsets.append(4 * layout.columnProperty[c.rawValue])
            copyTargets.append(scene.columnBase(c))
        }
        let shOffsets = shSourceIndices(layout, keptDim: scene.shCoefficientsPerChannel).map { 4 * $0 }
        let shPer = scene.shFloatsPerSplat
        let shBase = scene.sh.baseAddress
        let n = scene.count
        let epilogue = ChunkEpilogue(scene: scene, layout: layout, rowsPerChunk: rowsPerChunk)

        copyOffsets.withUnsafeBufferPointer { offsets in
            copyTargets.withUnsafeBufferPointer { targets in
                shOffsets.withUnsafeBufferPointer { shOff in
                    Parallel.forEachChunk(count: n, chunkSize: rowsPerChunk, cancellation: CancellationToken.current) { chunk, range in
                        let ncols = offsets.count
                        var row = base + range.lowerBound * stride
                        for i in range {
                            for c in 0..<ncols {
                                targets[c][i] = row.loadUnaligned(fromByteOffset: offsets[c], as: Float.self)
                            }
                            if let shBase {
                                let d = shBase + i * shPer
                                for j in 0..<shPer {
                                    d[j] = row.loadUnaligned(fromByteOffset: shOff[j], as: Float.self)
                                }
                            }
                            row += stride
                        }
                        epilogue.finish(chunk, range)
                    }
                }
            }
        }
        return epilogue.tally.total
    }

    // MARK: - Any binary layout

    private static func decodeBinaryRows(_ base: UnsafeRawPointer, header: PLYHeader, layout: PLYGaussianLayout,
                                         into scene: SplatScene) -> QuaternionNormalization.ZeroCount {
        let vertex = header.elements[layout.vertexIndex]
        let stride = vertex.rowSize ?? 0  // Lists in the vertex element were refused by the layout.
        let bigEndian = header.format == .binaryBigEndian
        struct Source { var offset: Int; var type: PLYScalarType }
        func source(_ property: Int) -> Source {
            Source(offset: vertex.byteOffset(ofProperty: property), type: vertex.properties[property].type)
        }
        var copySources: [Source] = []
        var copyTargets: [UnsafeMutablePointer<Float>] = []
        for c in SplatScene.Column.allCases where layout.columnProperty[c.rawValue] >= 0 {
            copySources.append(source(layout.columnProperty[c.rawValue]))
            copyTargets.append(scene.columnBase(c))
        }
        let shSources = shSourceIndices(layout, keptDim: scene.shCoefficientsPerChannel).map(source)
        let shPer = scene.shFloatsPerSplat
        let shBase = scene.sh.baseAddress
        let n = scene.count
        let epilogue = ChunkEpilogue(scene: scene, layout: layout, rowsPerChunk: rowsPerChunk)

        copySources.withUnsafeBufferPointer { sources in
            copyTargets.withUnsafeBufferPointer { targets in
                shSources.withUnsafeBufferPointer { shSrc in
                    Parallel.forEachChunk(count: n, chunkSize: rowsPerChunk, cancellation: CancellationToken.current) { chunk, range in
                        for i in range {
                            let row = base + i * stride
                            for c in 0..<sources.count {
                                let s = sources[c]
                                targets[c][i] = Float(PLYBodyReader.scalar(row + s.offset, s.type, bigEndian: bigEndian))
                            }
                            if let shBase {
                                let d = shBase + i * shPer
                                for j in 0..<shPer {
                                    let s = shSrc[j]
                                    d[j] = Float(PLYBodyReader.scalar(row + s.offset, s.type, bigEndian: bigEndian))
                                }
                            }
                        }
                        epilogue.finish(chunk, range)
                    }
                }
            }
        }
        return epilogue.tally.total
    }

    // MARK: - ASCII

    private static func skipASCIIElements(_ header: PLYHeader, before target: Int, _ stream: inout PLYASCIITokens) throws(SplatError) {
        // Elements without properties have no tokens, however many rows they declare.
        for element in header.elements[..<target] where !element.properties.isEmpty {
            for row in 0..<element.count {
                for p in element.properties {
                    if p.isList {
                        let v = try stream.nextNumber("element \(element.name) row \(row) list \(p.name) count")
                        guard v >= 0, v <= Double(Int32.max), v == v.rounded() else {
                            throw SplatError(.corrupt, "element \(element.name) row \(row): list \(p.name) count \(v) is not a non-negative integer",
                                             file: stream.file, offset: stream.position, field: p.name)
                        }
                        for _ in 0..<Int(v) where stream.next() == nil {
                            throw SplatError(.truncated, "ASCII body ended inside list \(p.name) of element \(element.name) row \(row)",
                                             file: stream.file, offset: stream.position, field: p.name)
                        }
                    } else if stream.next() == nil {
                        throw SplatError(.truncated, "ASCII body ended in element \(element.name) row \(row)",
                                         file: stream.file, offset: stream.position, field: p.name)
                    }
                }
            }
        }
    }

    private static func decodeASCII(_ stream: inout PLYASCIITokens, header: PLYHeader, layout: PLYGaussianLayout,
                                    into scene: SplatScene) throws(SplatError) -> QuaternionNormalization.ZeroCount {
        let vertex = header.elements[layout.vertexIndex]
        let props = vertex.properties.count
        var values = [Double](repeating: 0, count: props)
        let targets: [(property: Int, column: UnsafeMutablePointer<Float>)] = SplatScene.Column.allCases.compactMap { c in
            let p = layout.columnProperty[c.rawValue]
            return p >= 0 ? (p, scene.columnBase(c)) : nil
        }
        let shSources = shSourceIndices(layout, keptDim: scene.shCoefficientsPerChannel)
        let shPer = scene.shFloatsPerSplat
        let sh = scene.sh
        let cancellation = CancellationToken.current
        for i in 0..<scene.count {
            // Text parses at ~50 MB/s and a row of 62 values is ~600 bytes: every 4 Ki rows keeps
            // a check within ~50 ms of text (every 64 Ki rows was ~0.8 s of SH3 rows).
            if i & 0xFFF == 0 { try cancellation?.check("while parsing ASCII PLY rows") }
            for p in 0..<props {
                values[p] = try stream.nextNumber("element vertex row \(i) property \(vertex.properties[p].name)")
            }
            for t in targets { t.column[i] = Float(values[t.property]) }
            for j in 0..<shPer { sh[i * shPer + j] = Float(values[shSources[j]]) }
        }
        if layout.is2DGS { scene.logScaleZ.update(repeating: -.infinity) }
        let n = scene.count
        let tally = QuaternionNormalization.Tally(chunks: (n + rowsPerChunk - 1) / rowsPerChunk)
        let alpha = scene.columnBase(.alpha)
        Parallel.forEachChunk(count: n, chunkSize: rowsPerChunk, cancellation: CancellationToken.current) { chunk, range in
            applySigmoid(alpha, range)
            tally.record(chunk, QuaternionNormalization.normalize(scene, range))
        }
        return tally.total
    }

    // MARK: - Shared steps

    /// Vertex property index for each kept SH float, in the model's order `k·3 + c`: the file
    /// holds coefficient k of channel c at `f_rest_{c·fileDim + k}`. Only the first `keptDim`
    /// coefficients per channel are read when `maxShDegree` drops bands.
    static func shSourceIndices(_ layout: PLYGaussianLayout, keptDim: Int) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(3 * keptDim)
        for k in 0..<keptDim {
            for c in 0..<3 { out.append(layout.restProperty[c * layout.fileDim + k]) }
        }
        return out
    }

    /// alpha = 1/(1+exp(−opacity)), in Double as `formats.md` 3.2 asks; ±∞ give 1 and 0.
    @inline(__always)
    static func applySigmoid(_ alpha: UnsafeMutablePointer<Float>, _ range: Range<Int>) {
        for i in range {
            alpha[i] = Float(1 / (1 + exp(-Double(alpha[i]))))
        }
    }
}

/// What every binary row decoder does once a chunk's values are in place: the 2DGS third scale
/// (−∞, it has no source), the opacity sigmoid and quaternion normalization, counted per chunk.
private struct ChunkEpilogue {
    let scene: SplatScene
    let tally: QuaternionNormalization.Tally
    let logScaleZ: UnsafeMutablePointer<Float>
    let alpha: UnsafeMutablePointer<Float>
    let is2DGS: Bool

    init(scene: SplatScene, layout: PLYGaussianLayout, rowsPerChunk: Int) {
        self.scene = scene
        tally = QuaternionNormalization.Tally(chunks: (scene.count + rowsPerChunk - 1) / rowsPerChunk)
        logScaleZ = scene.columnBase(.logScaleZ)
        alpha = scene.columnBase(.alpha)
        is2DGS = layout.is2DGS
    }

    @inline(__always)
    func finish(_ chunk: Int, _ range: Range<Int>) {
        if is2DGS { (logScaleZ + range.lowerBound).update(repeating: -.infinity, count: range.count) }
        PLYDecoder.applySigmoid(alpha, range)
        tally.record(chunk, QuaternionNormalization.normalize(scene, range))
    }
}
