/// How a scene was trained, which changes how it must be rendered.
public enum SplatModel: String, Sendable, Codable {
    case `default`
    /// Mip-splatting's 3D filter: the renderer applies the opacity compensation.
    case antialiased
    /// 2D Gaussian splatting: the third scale is zero (log-scale −∞).
    case twoDGS = "2dgs"
}

/// The SPZ safe-orbit camera extension (`formats.md` 2.4), reported as found.
public struct CameraHints: Sendable, Equatable, Codable {
    public var elevationMin: Float
    public var elevationMax: Float
    public var radiusMin: Float

    public init(elevationMin: Float, elevationMax: Float, radiusMin: Float) {
        self.elevationMin = elevationMin
        self.elevationMax = elevationMax
        self.radiusMin = radiusMin
    }
}

/// The one in-memory model of a splat scene (`formats.md` 0.1): structure of arrays, Float32,
/// in the file's own frame until a `FrameConversion` is applied.
///
/// All columns live in one 64-byte-aligned slab; each column starts on a 64-byte boundary and is
/// padded to a multiple of 16 floats, so SIMD loops may read whole `SIMD16` blocks past `count`
/// (the padding is zeroed). The scene owns the slab and frees it on deinit. It is a class so a
/// multi-gigabyte scene is never copied by accident; it is `@unchecked Sendable` because
/// parallel stages write disjoint ranges of its columns.
public final class SplatScene: @unchecked Sendable {
    /// The 14 scalar columns, in slab order.
    public enum Column: Int, CaseIterable, Sendable {
        case x, y, z
        case logScaleX, logScaleY, logScaleZ
        case rotW, rotX, rotY, rotZ
        case alpha
        case dcR, dcG, dcB
    }

    /// Number of splats. Shrinks only through `compact(keeping:)`.
    public private(set) var count: Int
    /// SH degree of the stored coefficients, 0...4.
    public let shDegree: Int
    public var model: SplatModel = .default
    /// A frame stated inside the file (only the SPZ coordinate-system extension does that).
    public var declaredFrame: CoordinateSystem?
    /// The frame the format is conventionally written in (`formats.md` 7.3).
    public var conventionalFrame: CoordinateSystem = .rdf
    public var cameraHints: CameraHints?
    /// What the colours are: sRGB display values unless a glTF says linear light.
    public var colorSpace: SplatColorSpace = .srgbRec709Display
    /// Node transforms the file draws its stored splats with (glTF); nil when the stored values
    /// are the scene. Apply them with `SceneTransform.flatten` before rendering.
    public var nodeInstances: NodeInstances?
    /// Non-fatal oddities found while decoding or converting.
    public var warnings: [String] = []
    /// The SH bands as the file's 8-bit codes, when decoded with `SHStorage.quantized` (then
    /// `shDegree` is 0 and `sh` is empty: the scene holds no Float32 SH). Only the renderer reads
    /// them; frame changes record themselves in it instead of rewriting the codes.
    public var quantizedSH: QuantizedSH?

    /// Padded floats per scalar column.
    public let columnStride: Int
    private let slab: UnsafeMutableRawPointer
    private let slabBytes: Int

    /// Non-DC SH coefficients per colour channel at `degree`: 0, 3, 8, 15, 24.
    @inlinable public static func shCoefficientCount(degree: Int) -> Int { (degree + 1) * (degree + 1) - 1 }

    /// Decoded bytes per splat at `degree`: 56, 92, 152, 236, 344 (`formats.md` 0.1).
    @inlinable public static func bytesPerSplat(degree: Int) -> Int { 4 * (14 + 3 * shCoefficientCount(degree: degree)) }

    /// Non-DC SH coefficients per channel in this scene.
    public var shCoefficientsPerChannel: Int { Self.shCoefficientCount(degree: shDegree) }
    /// Floats of SH per splat: coefficients × 3 channels.
    public var shFloatsPerSplat: Int { 3 * shCoefficientsPerChannel }

    /// Allocates storage for `count` splats. Callers check `DecodeLimits` first; the contents
    /// are zero-filled only when `zeroed` is true (decoders overwrite every value anyway).
    public init(count: Int, shDegree: Int, zeroed: Bool = false) {
        precondition(count >= 0 && (0...4).contains(shDegree), "scene shape is checked by the decoder")
        self.count = count
        self.shDegree = shDegree
        let stride = (count + 15) & ~15
        self.columnStride = stride
        let shFloats = ((count * 3 * Self.shCoefficientCount(degree: shDegree)) + 15) & ~15
        let floats = stride * Column.allCases.count + shFloats
        slabBytes = max(64, floats * 4)
        slab = UnsafeMutableRawPointer.allocate(byteCount: slabBytes, alignment: 64)
        HugePageAdvice.advise(slab, byteCount: slabBytes)
        if zeroed {
            slab.initializeMemory(as: UInt8.self, repeating: 0, count: slabBytes)
        } else {
            // Only the padding tails must be defined, so SIMD over whole blocks reads zeros.
            for column in Column.allCases {
                let base = slab.assumingMemoryBound(to: Float.self) + column.rawValue * stride
                (base + count).initialize(repeating: 0, count: stride - count)
            }
            let shBase = slab.assumingMemoryBound(to: Float.self) + Column.allCases.count * stride
            let used = count * shFloatsPerSplatFor(shDegree)
            (shBase + used).initialize(repeating: 0, count: shFloats - used)
        }
    }

    deinit { slab.deallocate() }


    /// One scalar column, `count` values.
    @inlinable public func column(_ c: Column) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: columnBase(c), count: count)
    }

    /// Base pointer of a column; `columnStride` floats are addressable.
    public func columnBase(_ c: Column) -> UnsafeMutablePointer<Float> {
        slab.assumingMemoryBound(to: Float.self) + c.rawValue * columnStride
    }

    /// Non-DC SH, `count × dim × 3`, coefficient-major and channel-minor: `sh[(i·dim + k)·3 + c]`.
    public var sh: UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: slab.assumingMemoryBound(to: Float.self) + Column.allCases.count * columnStride,
                                   count: count * shFloatsPerSplat)
    }

    public var x: UnsafeMutableBufferPointer<Float> { column(.x) }
    public var y: UnsafeMutableBufferPointer<Float> { column(.y) }
    public var z: UnsafeMutableBufferPointer<Float> { column(.z) }
    public var logScaleX: UnsafeMutableBufferPointer<Float> { column(.logScaleX) }
    public var logScaleY: UnsafeMutableBufferPointer<Float> { column(.logScaleY) }
    public var logScaleZ: UnsafeMutableBufferPointer<Float> { column(.logScaleZ) }
    public var rotW: UnsafeMutableBufferPointer<Float> { column(.rotW) }
    public var rotX: UnsafeMutableBufferPointer<Float> { column(.rotX) }
    public var rotY: UnsafeMutableBufferPointer<Float> { column(.rotY) }
    public var rotZ: UnsafeMutableBufferPointer<Float> { column(.rotZ) }
    public var alpha: UnsafeMutableBufferPointer<Float> { column(.alpha) }
    public var dcR: UnsafeMutableBufferPointer<Float> { column(.dcR) }
    public var dcG: UnsafeMutableBufferPointer<Float> { column(.dcG) }
    public var dcB: UnsafeMutableBufferPointer<Float> { column(.dcB) }

    /// Bytes of decoded data this scene represents (the model's size, without padding).
    public var decodedBytes: Int { count * Self.bytesPerSplat(degree: shDegree) }

    /// Keeps the splats where `keep(i)` is true, in order, moving them down in place.
    /// Returns how many were removed.
    @discardableResult
    public func compact(keeping keep: (Int) -> Bool) -> Int {
        var write = 0
        let dim3 = shFloatsPerSplat
        let shBase = sh.baseAddress!
        // Mesh ranges of node instances move with their splats.
        let marks = nodeInstances?.boundaries ?? []
        var moved: [Int] = []
        for read in 0..<count {
            while moved.count < marks.count, marks[moved.count] == read { moved.append(write) }
            guard keep(read) else { continue }
            if write != read {
                for c in Column.allCases {
                    let base = columnBase(c)
                    base[write] = base[read]
                }
                if dim3 > 0 {
                    (shBase + write * dim3).update(from: shBase + read * dim3, count: dim3)
                }
                quantizedSH?.move(read, to: write)
            }
            write += 1
        }
        while moved.count < marks.count { moved.append(write) }
        if !marks.isEmpty { nodeInstances = nodeInstances?.remapped(boundaries: marks, to: moved) }
        let removed = count - write
        if removed > 0 {
            for c in Column.allCases { (columnBase(c) + write).update(repeating: 0, count: count - write) }
            count = write
            quantizedSH?.count = write
        }
        return removed
    }

    /// Position of splat `i`.
    public func position(_ i: Int) -> SIMD3<Float> { SIMD3(x[i], y[i], z[i]) }
    /// Rotation of splat `i` as (w, x, y, z).
    public func rotation(_ i: Int) -> SIMD4<Float> { SIMD4(rotW[i], rotX[i], rotY[i], rotZ[i]) }
    /// Log-scales of splat `i`.
    public func logScale(_ i: Int) -> SIMD3<Float> { SIMD3(logScaleX[i], logScaleY[i], logScaleZ[i]) }
    /// DC coefficients of splat `i`.
    public func dc(_ i: Int) -> SIMD3<Float> { SIMD3(dcR[i], dcG[i], dcB[i]) }
    /// SH coefficient `k` (0-based, non-DC) of splat `i` as (R, G, B).
    public func shCoefficient(_ i: Int, _ k: Int) -> SIMD3<Float> {
        let base = (i * shCoefficientsPerChannel + k) * 3
        return SIMD3(sh[base], sh[base + 1], sh[base + 2])
    }
}

@inline(__always) private func shFloatsPerSplatFor(_ degree: Int) -> Int { 3 * SplatScene.shCoefficientCount(degree: degree) }
