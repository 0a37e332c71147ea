import SplatCore

/// Decodes PlayCanvas compressed PLY (`formats.md` 4): per-256-splat `chunk` bounds, four packed
/// `uint` words per splat in `vertex`, and an optional `sh` element of bytes (channel-major, read
/// with splat-transform's bucket-midpoint form). Work is split over chunks on all cores, eight
/// splats at a time in SIMD lanes. A plain 3DGS PLY passed here is handed to `PLYDecoder`.
public enum CompressedPLYDecoder {
    /// Reads the header only: count, SH degree from the `sh` element, model from comments.
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        let header = try PLYHeader.parse(bytes, file: file, limits: limits)
        guard header.isCompressed else { return try PLYDecoder.readHeader(bytes, file: file, limits: limits) }
        return try readHeader(parsed: header, file: file)
    }

    /// Decodes the whole file, checking the declared size against `limits` before allocating.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let header = try PLYHeader.parse(bytes, file: file, limits: limits)
        guard header.isCompressed else { return try PLYDecoder.decode(bytes, file: file, limits: limits) }
        return try decode(parsed: header, bytes, file: file, limits: limits)
    }

    static func readHeader(parsed header: PLYHeader, file: String?) throws(SplatError) -> SceneHeader {
        let layout = try Layout(header, file: file)
        return sceneHeader(header, layout)
    }

    static func decode(parsed header: PLYHeader, _ bytes: UnsafeRawBufferPointer, file: String?,
                       limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let layout = try Layout(header, file: file)
        let kept = try limits.checkScene(count: layout.count, fileDegree: layout.degree, file: file)
        let chunkOffset = try PLYBodyReader.binaryElementOffset(header, target: layout.chunkElement, bytes: bytes, file: file)
        let vertexOffset = try PLYBodyReader.binaryElementOffset(header, target: layout.vertexElement, bytes: bytes, file: file)
        var shOffset = 0
        if let s = layout.shElement {
            shOffset = try PLYBodyReader.binaryElementOffset(header, target: s, bytes: bytes, file: file)
        }
        guard let base = bytes.baseAddress else {
            throw SplatError(.truncated, "no body", file: file, offset: header.bodyOffset)
        }
        let scene = SplatScene(count: layout.count, shDegree: kept)
        let zeros = decodeBody(base, chunkOffset: chunkOffset, vertexOffset: vertexOffset, shOffset: shOffset,
                               layout: layout, into: scene)
        var info = sceneHeader(header, layout)
        if let w = zeros.warning { info.warnings.append(w) }
        scene.model = layout.model
        scene.conventionalFrame = .rdf
        scene.warnings = info.warnings
        return DecodedScene(scene: scene, header: info)
    }

    private static func sceneHeader(_ header: PLYHeader, _ layout: Layout) -> SceneHeader {
        var details = [
            "ply_format": header.format.rawValue,
            "variant": "playcanvas-compressed",
            "chunks": String(layout.chunkCount),
            "chunk_properties": layout.hasColorBounds ? "18" : "12",
            "elements": header.elements.map { "\($0.name) \($0.count)" }.joined(separator: ", "),
        ]
        if !header.comments.isEmpty { details["comments"] = header.comments.joined(separator: "\n") }
        return SceneHeader(format: .compressedPLY, count: layout.count, shDegree: layout.degree, model: layout.model,
                           conventionalFrame: .rdf, warnings: layout.warnings, details: details)
    }

    // MARK: - Layout

    static let boundNames = ["min_x", "min_y", "min_z", "max_x", "max_y", "max_z",
                             "min_scale_x", "min_scale_y", "min_scale_z", "max_scale_x", "max_scale_y", "max_scale_z"]
    static let colorBoundNames = ["min_r", "min_g", "min_b", "max_r", "max_g", "max_b"]
    static let packedNames = ["packed_position", "packed_rotation", "packed_scale", "packed_color"]

    /// Where everything lives, validated against `formats.md` 4 and 8.4.
    struct Layout {
        var chunkElement: Int
        var vertexElement: Int
        var shElement: Int?
        var count: Int
        var chunkCount: Int
        var hasColorBounds: Bool
        /// Byte offsets in a chunk row of the 12 (or 18) bounds, in `boundNames + colorBoundNames` order.
        var boundOffsets: [Int]
        var chunkStride: Int
        /// Byte offsets in a vertex row of the four packed words.
        var packedOffsets: [Int]
        var vertexStride: Int
        /// Byte offset in an sh row of `f_rest_j`.
        var restOffsets: [Int]
        var shStride: Int
        var degree: Int
        var model: SplatModel
        var warnings: [String]

        var fileDim: Int { SplatScene.shCoefficientCount(degree: degree) }

        init(_ header: PLYHeader, file: String?) throws(SplatError) {
            func bad(_ message: String, field: String? = nil) -> SplatError {
                SplatError(.badHeader, message, file: file, field: field)
            }
            guard header.format == .binaryLittleEndian else {
                throw SplatError(.unsupported, "compressed PLY must be binary_little_endian, not \(header.format.rawValue)",
                                 file: file, field: "format")
            }
            guard let c = header.elementIndex("chunk") else { throw bad("compressed PLY without a chunk element", field: "chunk") }
            guard let v = header.elementIndex("vertex") else { throw bad("compressed PLY without a vertex element", field: "vertex") }
            for e in [c, v] + (header.elementIndex("sh").map { [$0] } ?? []) {
                if let list = header.elements[e].properties.first(where: { $0.isList }) {
                    throw SplatError(.unsupported, "list property '\(list.name)' in compressed PLY element \(header.elements[e].name)",
                                     file: file, field: list.name)
                }
            }
            let chunk = header.elements[c], vertex = header.elements[v]
            func offset(in element: PLYElement, _ name: String, _ types: [PLYScalarType]) throws(SplatError) -> Int {
                guard let i = element.index[name] else { throw bad("\(element.name) property \(name) is missing", field: name) }
                guard types.contains(element.properties[i].type) else {
                    throw bad("\(element.name) property \(name) must be \(types == [.float32] ? "float" : "uint")", field: name)
                }
                return element.byteOffset(ofProperty: i)
            }
            var bounds: [Int] = []
            for name in CompressedPLYDecoder.boundNames { bounds.append(try offset(in: chunk, name, [.float32])) }
            let colorPresent = CompressedPLYDecoder.colorBoundNames.filter { chunk.index[$0] != nil }
            hasColorBounds = !colorPresent.isEmpty
            if hasColorBounds {
                for name in CompressedPLYDecoder.colorBoundNames { bounds.append(try offset(in: chunk, name, [.float32])) }
            }
            var packed: [Int] = []
            for name in CompressedPLYDecoder.packedNames { packed.append(try offset(in: vertex, name, [.uint32])) }

            count = vertex.count
            guard count > 0 else {
                throw SplatError(.empty, "element vertex has 0 rows", file: file, field: "element vertex")
            }
            let expectedChunks = (count + 255) / 256
            guard chunk.count == expectedChunks else {
                throw bad("\(chunk.count) chunks for \(count) splats; expected ceil(\(count)/256) = \(expectedChunks)", field: "element chunk")
            }

            var rest: [Int] = []
            var shStride = 0
            if let s = header.elementIndex("sh") {
                let sh = header.elements[s]
                guard sh.count == count else {
                    throw bad("sh element has \(sh.count) rows for \(count) splats", field: "element sh")
                }
                let names = sh.properties.map(\.name).filter { $0.hasPrefix("f_rest_") }
                guard [9, 24, 45].contains(names.count) else {
                    throw bad("sh element has \(names.count) f_rest properties; expected 9, 24 or 45", field: "element sh")
                }
                for j in 0..<names.count {
                    rest.append(try offset(in: sh, "f_rest_\(j)", [.uint8]))
                }
                shStride = sh.rowSize ?? 0
                shElement = s
            } else {
                shElement = nil
            }
            self.shStride = shStride
            restOffsets = rest
            degree = PLYGaussianLayout.degreeForRestCount[rest.count] ?? 0
            chunkElement = c
            vertexElement = v
            chunkCount = chunk.count
            boundOffsets = bounds
            chunkStride = chunk.rowSize ?? 0
            packedOffsets = packed
            vertexStride = vertex.rowSize ?? 0
            let (m, w) = header.modelFromComments()
            model = m
            warnings = header.warnings + w
        }
    }

    // MARK: - Body

    /// splat-transform's byte → SH value: the centre of the writer's quantization bucket, with
    /// the end bytes pinned to ±4.
    static let shByteValue: [Float] = (0..<256).map { b in
        let t: Double = b == 0 ? 0 : b == 255 ? 1 : (Double(b) + 0.5) / 256
        return Float((t - 0.5) * 8)
    }

    /// Compressed chunks per parallel work item.
    static let chunksPerTask = 16

    private static func decodeBody(_ base: UnsafeRawPointer, chunkOffset: Int, vertexOffset: Int, shOffset: Int,
                                   layout: Layout, into scene: SplatScene) -> QuaternionNormalization.ZeroCount {
        let n = scene.count
        let tasks = (layout.chunkCount + chunksPerTask - 1) / chunksPerTask
        let tally = QuaternionNormalization.Tally(chunks: tasks)
        let targets = SplatScene.Column.allCases.map { scene.columnBase($0) }
        let keptDim = scene.shCoefficientsPerChannel
        let fileDim = layout.fileDim
        let shBase = scene.sh.baseAddress
        let chunks = base + chunkOffset, vertices = base + vertexOffset, shRows = base + shOffset

        _ = shByteValue.withUnsafeBufferPointer { shTable in
            targets.withUnsafeBufferPointer { targets in
                Parallel.forEachChunk(count: layout.chunkCount, chunkSize: chunksPerTask, cancellation: CancellationToken.current) { task, chunkRange in
                    for c in chunkRange {
                        let bounds = Bounds(chunks + c * layout.chunkStride, layout)
                        let first = c * 256
                        let last = min(n, first + 256)
                        var i = first
                        while i < last {
                            let lanes = min(8, last - i)
                            var words = (SIMD8<UInt32>(), SIMD8<UInt32>(), SIMD8<UInt32>(), SIMD8<UInt32>())
                            for l in 0..<lanes {
                                let row = vertices + (i + l) * layout.vertexStride
                                words.0[l] = row.loadUnaligned(fromByteOffset: layout.packedOffsets[0], as: UInt32.self)
                                words.1[l] = row.loadUnaligned(fromByteOffset: layout.packedOffsets[1], as: UInt32.self)
                                words.2[l] = row.loadUnaligned(fromByteOffset: layout.packedOffsets[2], as: UInt32.self)
                                words.3[l] = row.loadUnaligned(fromByteOffset: layout.packedOffsets[3], as: UInt32.self)
                            }
                            decodeLanes(position: words.0, rotation: words.1, scale: words.2, color: words.3, bounds,
                                        into: targets, at: i, lanes: lanes)
                            i += lanes
                        }
                        if let shBase, keptDim > 0 {
                            let per = 3 * keptDim
                            for s in first..<last {
                                let row = shRows + s * layout.shStride
                                let d = shBase + s * per
                                for k in 0..<keptDim {
                                    for ch in 0..<3 {
                                        let byte = row.load(fromByteOffset: layout.restOffsets[ch * fileDim + k], as: UInt8.self)
                                        d[k * 3 + ch] = shTable[Int(byte)]
                                    }
                                }
                            }
                        }
                    }
                    let first = chunkRange.lowerBound * 256
                    let splats = first..<min(n, chunkRange.upperBound * 256)
                    tally.record(task, QuaternionNormalization.normalize(scene, splats))
                }
            }
        }
        return tally.total
    }

    /// One chunk's bounds, broadcast for SIMD use.
    struct Bounds {
        var minPosition: SIMD3<Float>, maxPosition: SIMD3<Float>
        var minScale: SIMD3<Float>, maxScale: SIMD3<Float>
        var minColor: SIMD3<Float>, maxColor: SIMD3<Float>

        init(_ row: UnsafeRawPointer, _ layout: Layout) {
            func f(_ i: Int) -> Float { row.loadUnaligned(fromByteOffset: layout.boundOffsets[i], as: Float.self) }
            minPosition = SIMD3(f(0), f(1), f(2)); maxPosition = SIMD3(f(3), f(4), f(5))
            minScale = SIMD3(f(6), f(7), f(8)); maxScale = SIMD3(f(9), f(10), f(11))
            if layout.hasColorBounds {
                minColor = SIMD3(f(12), f(13), f(14)); maxColor = SIMD3(f(15), f(16), f(17))
            } else {
                // Without colour bounds the byte is the colour itself: lerp(0, 1, t) = t.
                minColor = .zero; maxColor = .one
            }
        }
    }

    @inline(__always)
    private static func unorm(_ v: SIMD8<UInt32>, bits: UInt32) -> SIMD8<Float> {
        let mask = (UInt32(1) << bits) - 1
        return SIMD8<Float>(v & mask) / Float(mask)
    }

    @inline(__always)
    private static func lerp(_ a: Float, _ b: Float, _ t: SIMD8<Float>) -> SIMD8<Float> {
        SIMD8(repeating: a) * (1 - t) + SIMD8(repeating: b) * t
    }

    /// Decodes eight splats' packed words into the 14 columns at `i` (the quaternion not yet
    /// normalized); only the first `lanes` values are stored.
    @inline(__always)
    private static func decodeLanes(position p: SIMD8<UInt32>, rotation r: SIMD8<UInt32>, scale s: SIMD8<UInt32>,
                                    color col: SIMD8<UInt32>, _ b: Bounds,
                                    into targets: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, at i: Int, lanes: Int) {
        @inline(__always) func store(_ column: SplatScene.Column, _ v: SIMD8<Float>) {
            let dst = targets[column.rawValue] + i
            if lanes == 8 {
                UnsafeMutableRawPointer(dst).storeBytes(of: v, as: SIMD8<Float>.self)
            } else {
                for l in 0..<lanes { dst[l] = v[l] }
            }
        }
        store(.x, lerp(b.minPosition.x, b.maxPosition.x, unorm(p &>> 21, bits: 11)))
        store(.y, lerp(b.minPosition.y, b.maxPosition.y, unorm(p &>> 11, bits: 10)))
        store(.z, lerp(b.minPosition.z, b.maxPosition.z, unorm(p, bits: 11)))
        store(.logScaleX, lerp(b.minScale.x, b.maxScale.x, unorm(s &>> 21, bits: 11)))
        store(.logScaleY, lerp(b.minScale.y, b.maxScale.y, unorm(s &>> 11, bits: 10)))
        store(.logScaleZ, lerp(b.minScale.z, b.maxScale.z, unorm(s, bits: 11)))

        let sqrt2 = Float(2).squareRoot()
        let qa = (unorm(r &>> 20, bits: 10) - 0.5) * sqrt2
        let qb = (unorm(r &>> 10, bits: 10) - 0.5) * sqrt2
        let qc = (unorm(r, bits: 10) - 0.5) * sqrt2
        let rest = 1 - (qa * qa + qb * qb + qc * qc)
        let m = rest.replacing(with: 0, where: rest .< 0).squareRoot()
        let largest = r &>> 30
        // (w, x, y, z) = L0 (m,a,b,c), L1 (a,m,b,c), L2 (a,b,m,c), L3 (a,b,c,m).
        store(.rotW, qa.replacing(with: m, where: largest .== 0))
        var qx = qb.replacing(with: qa, where: largest .== 0)
        qx.replace(with: m, where: largest .== 1)
        store(.rotX, qx)
        var qy = qc.replacing(with: qb, where: largest .<= 1)
        qy.replace(with: m, where: largest .== 2)
        store(.rotY, qy)
        store(.rotZ, qc.replacing(with: m, where: largest .== 3))

        let c0 = Float(SphericalHarmonics.c0)
        store(.dcR, (lerp(b.minColor.x, b.maxColor.x, unorm(col &>> 24, bits: 8)) - 0.5) / c0)
        store(.dcG, (lerp(b.minColor.y, b.maxColor.y, unorm(col &>> 16, bits: 8)) - 0.5) / c0)
        store(.dcB, (lerp(b.minColor.z, b.maxColor.z, unorm(col &>> 8, bits: 8)) - 0.5) / c0)
        store(.alpha, unorm(col, bits: 8))
    }
}
