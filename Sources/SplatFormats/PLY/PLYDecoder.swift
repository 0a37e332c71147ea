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
/// that transposes rows straight into the scene's columns on all cores. Binary bodies can also
/// be read from an open file in slices (`decode(_: RegularFile, limits:)`), never held whole.
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
        return sceneHeader(header, layout, limits: limits)
    }

    /// Decodes the whole file. Checks the declared size against `limits` from the header before
    /// allocating; honours `limits.maxShDegree` by keeping the first coefficients per channel.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let header = try PLYHeader.parse(bytes, file: file, limits: limits)
        if header.isCompressed {
            return try CompressedPLYDecoder.decode(parsed: header, bytes, file: file, limits: limits)
        }
        let layout = try PLYGaussianLayout(header, file: file)
        let (kept, info) = try admit(header, layout, file: file, limits: limits)
        let n = layout.count

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
            let rows: RowsOutcome
            (scene, rows) = try decodeBinary(header, layout, kept: kept, rows: .memory(base + offset))
            return try finish(scene, zeros: rows.zeros, provenFinite: rows.provenFinite, layout: layout, info: info)
        }
        return try finish(scene, zeros: zeros, provenFinite: false, layout: layout, info: info)
    }

    /// The vertex count and SH degree admitted by `limits` (refused before anything is
    /// allocated), with the header facts.
    static func admit(_ header: PLYHeader, _ layout: PLYGaussianLayout, file: String?,
                      limits: DecodeLimits) throws(SplatError) -> (keptDegree: Int, info: SceneHeader) {
        guard layout.count > 0 else {
            throw SplatError(.empty, "element vertex has 0 rows", file: file, field: "element vertex")
        }
        let kept = try limits.checkScene(count: layout.count, fileDegree: layout.fileDegree, file: file)
        return (kept, sceneHeader(header, layout, limits: limits))
    }

    /// What the binary row decode counted: zero quaternions, and whether every chunk was proven
    /// finite (`NonFiniteFilter.chunkIsClean`) while it was in cache.
    typealias RowsOutcome = (zeros: QuaternionNormalization.ZeroCount, provenFinite: Bool)

    /// The binary vertex rows, from memory or from a file, into a new scene.
    static func decodeBinary(_ header: PLYHeader, _ layout: PLYGaussianLayout, kept: Int,
                             rows: PLYRowSource) throws(SplatError) -> (SplatScene, RowsOutcome) {
        let scene = SplatScene(count: layout.count, shDegree: kept)
        let zeros = layout.isAllFloatLittleEndian(header)
            ? try decodeFloatRows(rows, header: header, layout: layout, into: scene)
            : try decodeBinaryRows(rows, header: header, layout: layout, into: scene)
        return (scene, zeros)
    }

    static func finish(_ scene: SplatScene, zeros: QuaternionNormalization.ZeroCount, provenFinite: Bool,
                       layout: PLYGaussianLayout, info: SceneHeader) throws(SplatError) -> DecodedScene {
        try CancellationToken.checkCurrent("while decoding PLY rows")
        var info = info
        scene.model = layout.model
        scene.conventionalFrame = .rdf
        if let w = zeros.warning { info.warnings.append(w) }
        scene.warnings = info.warnings
        var decoded = DecodedScene(scene: scene, header: info)
        decoded.valuesProvenFinite = provenFinite
        return decoded
    }

    // MARK: - Header facts

    private static func sceneHeader(_ header: PLYHeader, _ layout: PLYGaussianLayout, limits: DecodeLimits) -> SceneHeader {
        var details = [
            "ply_format": header.format.rawValue,
            "vertex_properties": String(header.elements[layout.vertexIndex].properties.count),
            "elements": header.elements.map { "\($0.name) \($0.count)" }.joined(separator: ", "),
        ]
        if !header.comments.isEmpty { details["comments"] = header.comments.joined(separator: "\n") }
        var facts = SceneHeader(format: .ply, count: layout.count, shDegree: layout.fileDegree, model: layout.model,
                              conventionalFrame: .rdf, warnings: layout.warnings, details: details)
        // What `decode(_: RegularFile, …)` holds of a file it reads in slices: the header window
        // and one chunk of rows per core.
        let vertex = header.elements[layout.vertexIndex]
        if header.format != .ascii, let stride = vertex.rowSize,
           header.elements[..<layout.vertexIndex].allSatisfy({ $0.rowSize != nil }) {
            let workers = Parallel.workerCount(iterations: (layout.count + rowsPerChunk - 1) / rowsPerChunk)
            facts.fileSliceBytes = CheckedSize.add(min(headerWindow(limits), 1 << 30), CheckedSize.mul(workers * rowsPerChunk, stride) ?? Int.max)
        }
        return facts
    }

    // MARK: - Fast path: little-endian, all floats

    /// Rows per parallel work item: small enough that a chunk's columns stay in cache for the
    /// sigmoid and normalization pass that follows the transpose.
    static let rowsPerChunk = 4096

    private static func decodeFloatRows(_ rows: PLYRowSource, header: PLYHeader, layout: PLYGaussianLayout,
                                        into scene: SplatScene) throws(SplatError) -> RowsOutcome {
        let vertex = header.elements[layout.vertexIndex]
        return try copyRows(rows, stride: 4 * vertex.properties.count, layout: layout, into: scene, reader: FloatRowReader())
    }

    // MARK: - Any binary layout

    private static func decodeBinaryRows(_ rows: PLYRowSource, header: PLYHeader, layout: PLYGaussianLayout,
                                         into scene: SplatScene) throws(SplatError) -> RowsOutcome {
        let vertex = header.elements[layout.vertexIndex]
        let stride = vertex.rowSize ?? 0  // Lists in the vertex element were refused by the layout.
        return try copyRows(rows, stride: stride, layout: layout, into: scene,
                            reader: ScalarRowReader(vertex: vertex, bigEndian: header.format == .binaryBigEndian))
    }

    /// The binary row transpose on all cores: for each row (`stride` bytes apart), every column
    /// with a source property and every kept SH float is read by `reader` from where its
    /// `source` placed the property; then the chunk epilogue. `source` runs once per property, up
    /// front; `load` once per value. The reader is a generic type rather than a closure so that
    /// its `load` is always specialised into the loop (a closure passed through the nested
    /// buffer closures stayed a call per value: a quarter of the decode). Rows from a file are read
    /// a chunk at a time into the worker's own buffer (1 MiB for 4,096 SH3 rows: it stays in L2
    /// for the transpose that follows).
    @inline(__always)
    private static func copyRows<Reader: PLYRowReader>(_ rows: PLYRowSource, stride: Int, layout: PLYGaussianLayout,
                                                       into scene: SplatScene, reader: Reader) throws(SplatError) -> RowsOutcome {
        // Columns to copy (the 2DGS third scale has no source) with where their values are in a row.
        var copySources: [Reader.Source] = []
        var copyTargets: [UnsafeMutablePointer<Float>] = []
        for c in SplatScene.Column.allCases where layout.columnProperty[c.rawValue] >= 0 {
            copySources.append(reader.source(layout.columnProperty[c.rawValue]))
            copyTargets.append(scene.columnBase(c))
        }
        let shSources = shSourceIndices(layout, keptDim: scene.shCoefficientsPerChannel).map(reader.source)
        let shPer = scene.shFloatsPerSplat
        let shBase = scene.sh.baseAddress
        let n = scene.count
        let epilogue = PLYChunkEpilogue(scene: scene, layout: layout, rowsPerChunk: rowsPerChunk)
        let chunkBytes = rowsPerChunk * stride
        let scratch: UnsafeMutableRawPointer?
        if case .file = rows {
            let workers = Parallel.workerCount(iterations: (n + rowsPerChunk - 1) / rowsPerChunk)
            scratch = .allocate(byteCount: max(1, workers * chunkBytes), alignment: 64)
        } else {
            scratch = nil
        }
        defer { scratch?.deallocate() }

        try copySources.withUnsafeBufferPointer { (sources) throws(SplatError) in
            try copyTargets.withUnsafeBufferPointer { (targets) throws(SplatError) in
                try shSources.withUnsafeBufferPointer { (shSrc) throws(SplatError) in
                    try Parallel.forEachChunkOnWorkers(count: n, chunkSize: rowsPerChunk, cancellation: CancellationToken.current) {
                        (worker, chunk, range) throws(SplatError) in
                        var row: UnsafeRawPointer
                        switch rows {
                        case .memory(let base):
                            row = base + range.lowerBound * stride
                        case .file(let input, let offset):
                            let buffer = scratch! + worker * chunkBytes
                            try input.read(into: buffer, count: range.count * stride, at: offset + range.lowerBound * stride)
                            row = UnsafeRawPointer(buffer)
                        }
                        let ncols = sources.count
                        for i in range {
                            for c in 0..<ncols {
                                targets[c][i] = reader.load(row, sources[c])
                            }
                            if let shBase {
                                let d = shBase + i * shPer
                                for j in 0..<shPer {
                                    d[j] = reader.load(row, shSrc[j])
                                }
                            }
                            row += stride
                        }
                        epilogue.finish(chunk, range)
                    }
                }
            }
        }
        return (epilogue.tally.total, epilogue.allClean)
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
