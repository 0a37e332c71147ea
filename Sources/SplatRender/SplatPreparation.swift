import SplatCore

/// The view-independent per-splat pass (`rendering.md` 5.1, 13): the six entries of the 3D
/// covariance Σ = Q·diag(s²)·Qᵀ from the normalised quaternion and s = exp(log-scale), and the
/// opacity used for culling, written into a `RenderScene`'s columns.
///
/// Splats that cannot be rendered — a zero-length quaternion, NaN or infinite values (a log-scale
/// of −∞ is valid: s = 0), or a covariance that overflows — get opacity 0 here, which the
/// per-frame o < 1/255 cull then removes. Decoders should already have dropped them; this keeps
/// the renderer robust for scenes built by hand.
enum SplatPreparation {
    static let chunkSize = 16384

    /// The 14 scalar columns of a run of splats (a decoded scene's, or a decoder chunk's).
    struct Columns {
        var x, y, z: UnsafePointer<Float>
        var logScaleX, logScaleY, logScaleZ: UnsafePointer<Float>
        var rotW, rotX, rotY, rotZ: UnsafePointer<Float>
        var alpha: UnsafePointer<Float>
        var dcR, dcG, dcB: UnsafePointer<Float>

        init(_ scene: SplatScene, from start: Int = 0) {
            func c(_ column: SplatScene.Column) -> UnsafePointer<Float> { UnsafePointer(scene.columnBase(column) + start) }
            (x, y, z) = (c(.x), c(.y), c(.z))
            (logScaleX, logScaleY, logScaleZ) = (c(.logScaleX), c(.logScaleY), c(.logScaleZ))
            (rotW, rotX, rotY, rotZ) = (c(.rotW), c(.rotX), c(.rotY), c(.rotZ))
            alpha = c(.alpha)
            (dcR, dcG, dcB) = (c(.dcR), c(.dcG), c(.dcB))
        }
    }

    /// Covariances and opacities of every splat of `scene` (padding lanes zeroed); returns how
    /// many were dropped. A cancelled token stops it between chunks; the caller must then
    /// discard the result.
    static func prepare(_ scene: SplatScene, covariance cov: UnsafeMutablePointer<Float>, opacity opa: UnsafeMutablePointer<Float>,
                        stride: Int, threads: Int?, cancellation: CancellationToken? = nil) -> Int {
        let n = scene.count
        // Padding lanes past `count` stay zero: opacity 0 means never visible.
        (opa + n).initialize(repeating: 0, count: stride - n)
        for k in 0..<6 { (cov + k * stride + n).initialize(repeating: 0, count: stride - n) }
        let sh = SHFiniteness(scene)
        let dropped = eachChunk(scene, threads: threads, cancellation: cancellation) { columns, range in
            var droppedHere = prepare(columns, range: range, covariance: cov, opacity: opa, stride: stride)
            if !sh.isFinite(range) {
                // Rare: find the splats whose bands 1–3 hold a NaN or infinity.
                for i in range where !sh.isFinite(i..<i + 1) && opa[i] != 0 {
                    opa[i] = 0
                    droppedHere += 1
                }
            }
            return droppedHere
        }
        return dropped.reduce(0, +)
    }

    /// How many splats of `scene` are unusable, storing nothing (the per-frame form), or nil when
    /// a splat's Float32 SH bands 1–3 hold a non-finite value: the per-frame form cannot drop
    /// such splats, so the caller prepares instead. A cancelled token stops it between chunks.
    static func countUnusable(_ scene: SplatScene, threads: Int?, cancellation: CancellationToken? = nil) -> Int? {
        let sh = SHFiniteness(scene)
        let dropped = eachChunk(scene, threads: threads, cancellation: cancellation) { columns, range in
            sh.isFinite(range) ? countUnusable(columns, range: range) : -1
        }
        return dropped.contains { $0 < 0 } ? nil : dropped.reduce(0, +)
    }

    /// `body`'s result for each chunk of `scene`, in chunk order (chunks run in parallel).
    private static func eachChunk(_ scene: SplatScene, threads: Int?, cancellation: CancellationToken?,
                                  _ body: (Columns, Range<Int>) -> Int) -> [Int] {
        let n = scene.count
        let chunks = max(1, (n + Self.chunkSize - 1) / Self.chunkSize)
        let results = AlignedBuffer<Int>(count: chunks, zeroed: true)
        let columns = Columns(scene)
        Parallel.forEachChunk(count: n, chunkSize: Self.chunkSize, threads: threads, cancellation: cancellation) { chunk, range in
            results[chunk] = body(columns, range)
        }
        return (0..<chunks).map { results[$0] }
    }

    /// Whether a run of splats' Float32 SH bands 1–3 are finite (bands above 3 are never
    /// evaluated); always true for a scene without Float32 SH (codes are always finite).
    private struct SHFiniteness: @unchecked Sendable {
        let base: UnsafePointer<Float>?
        let floatsPerSplat: Int
        let checked: Int

        init(_ scene: SplatScene) {
            floatsPerSplat = scene.shFloatsPerSplat
            checked = 3 * SplatScene.shCoefficientCount(degree: min(scene.shDegree, 3))
            base = checked > 0 ? UnsafePointer(scene.sh.baseAddress) : nil
        }

        func isFinite(_ range: Range<Int>) -> Bool {
            guard let base else { return true }
            if range.count == 1 {
                let p = base + range.lowerBound * floatsPerSplat
                var acc: Float = 0
                for k in 0..<checked { acc += p[k] - p[k] }
                return acc == 0
            }
            return SplatPreparation.allFinite(base + range.lowerBound * floatsPerSplat, count: range.count * floatsPerSplat)
        }
    }

    /// Covariances and opacities of the splats in `range`, read from `columns` (indexed like
    /// the output); returns how many were dropped.
    static func prepare(_ columns: Columns, range: Range<Int>, covariance: UnsafeMutablePointer<Float>,
                        opacity: UnsafeMutablePointer<Float>, stride: Int) -> Int {
        var dropped = 0
        var i = range.lowerBound
        while i < range.upperBound {
            dropped += prepareBlock(columns, at: i, end: range.upperBound, cov: covariance, stride: stride, opacity: opacity)
            i += 8
        }
        return dropped
    }

    /// Whether `count` floats are all finite (x − x is 0 for finite x, NaN otherwise), 16 at a time.
    static func allFinite(_ p: UnsafePointer<Float>, count: Int) -> Bool {
        var acc = SIMD16<Float>()
        var j = 0
        while j + 16 <= count {
            let v = UnsafeRawPointer(p + j).loadUnaligned(as: SIMD16<Float>.self)
            acc += v - v
            j += 16
        }
        var tail: Float = 0
        while j < count {
            tail += p[j] - p[j]
            j += 1
        }
        return acc.sum() + tail == 0
    }

    /// Σ of splats i..<i + 8 (xx, xy, xz, yy, yz, zz) and the lanes whose values are usable;
    /// lanes past the caller's end are not masked here. The one computation of Σ: the prepared
    /// columns store it, and the per-frame form (`RenderScene.Form.perFrame`) recomputes it in
    /// each frame, bit for bit the same.
    @inline(__always)
    static func covarianceBlock(_ c: Columns, at i: Int)
        -> (xx: SIMD8<Float>, xy: SIMD8<Float>, xz: SIMD8<Float>, yy: SIMD8<Float>, yz: SIMD8<Float>, zz: SIMD8<Float>,
            ok: SIMDMask<SIMD8<Int32>>) {
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
            UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
        }
        @inline(__always) func finite(_ v: SIMD8<Float>) -> SIMDMask<SIMD8<Int32>> { (v - v) .== 0 }
        let px = load(c.x), py = load(c.y), pz = load(c.z)
        var qw = load(c.rotW), qx = load(c.rotX), qy = load(c.rotY), qz = load(c.rotZ)
        let lx = load(c.logScaleX), ly = load(c.logScaleY), lz = load(c.logScaleZ)
        let alpha = load(c.alpha)
        let dcR = load(c.dcR), dcG = load(c.dcG), dcB = load(c.dcB)

        let norm = FastSqrt.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
        qw = qw / norm; qx = qx / norm; qy = qy / norm; qz = qz / norm
        // exp of a log-scale: −∞ must give 0 (valid), +∞ and NaN are invalid.
        let sx = FastExp.exp8(lx), sy = FastExp.exp8(ly), sz = FastExp.exp8(lz)
        let xx = qx * qx, yy = qy * qy, zz = qz * qz
        let xy = qx * qy, xz = qx * qz, yz = qy * qz
        let wx = qw * qx, wy = qw * qy, wz = qw * qz
        // M = Q·diag(s); Σ = M·Mᵀ.
        let m00 = (1 - 2 * (yy + zz)) * sx, m01 = 2 * (xy - wz) * sy, m02 = 2 * (xz + wy) * sz
        let m10 = 2 * (xy + wz) * sx, m11 = (1 - 2 * (xx + zz)) * sy, m12 = 2 * (yz - wx) * sz
        let m20 = 2 * (xz - wy) * sx, m21 = 2 * (yz + wx) * sy, m22 = (1 - 2 * (xx + yy)) * sz
        let c00 = m00 * m00 + m01 * m01 + m02 * m02
        let c01 = m00 * m10 + m01 * m11 + m02 * m12
        let c02 = m00 * m20 + m01 * m21 + m02 * m22
        let c11 = m10 * m10 + m11 * m11 + m12 * m12
        let c12 = m10 * m20 + m11 * m21 + m12 * m22
        let c22 = m20 * m20 + m21 * m21 + m22 * m22

        // exp8 is only valid up to 88.7; anything that large overflows Σ anyway (and the
        // reference's exp gives +∞), so such splats are dropped. NaN fails the compare too.
        let notPlusInfOrNaN: (SIMD8<Float>) -> SIMDMask<SIMD8<Int32>> = { $0 .< 88 }
        var ok = finite(px) .& finite(py) .& finite(pz)
        ok = ok .& finite(norm) .& (norm .> 0)
        ok = ok .& notPlusInfOrNaN(lx) .& notPlusInfOrNaN(ly) .& notPlusInfOrNaN(lz)
        ok = ok .& finite(alpha) .& finite(dcR) .& finite(dcG) .& finite(dcB)
        ok = ok .& finite(c00) .& finite(c01) .& finite(c02) .& finite(c11) .& finite(c12) .& finite(c22)
        return (c00, c01, c02, c11, c12, c22, ok)
    }

    /// The lanes of i..<min(i + 8, end).
    @inline(__always)
    static func lanes(at i: Int, end: Int) -> SIMDMask<SIMD8<Int32>> {
        SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .< Int32(min(8, end - i))
    }

    /// Covariance and opacity for splats at..<min(at + 8, end); returns how many were dropped.
    @inline(__always)
    private static func prepareBlock(_ c: Columns, at i: Int, end: Int, cov: UnsafeMutablePointer<Float>,
                                     stride: Int, opacity: UnsafeMutablePointer<Float>) -> Int {
        let (c00, c01, c02, c11, c12, c22, valid) = covarianceBlock(c, at: i)
        let ok = valid .& lanes(at: i, end: end)
        let lanes = min(8, end - i)
        let alpha = UnsafeRawPointer(c.alpha + i).loadUnaligned(as: SIMD8<Float>.self)
        let zero = SIMD8<Float>(repeating: 0)
        let store: (SIMD8<Float>, UnsafeMutablePointer<Float>) -> Void = { v, p in
            UnsafeMutableRawPointer(p).storeBytes(of: zero.replacing(with: v, where: ok), as: SIMD8<Float>.self)
        }
        store(c00, cov + i); store(c01, cov + stride + i); store(c02, cov + 2 * stride + i)
        store(c11, cov + 3 * stride + i); store(c12, cov + 4 * stride + i); store(c22, cov + 5 * stride + i)
        // Only the first `lanes` opacities belong to this chunk; the rest are written by the next
        // block (or are padding that must stay zero).
        let o = zero.replacing(with: alpha, where: ok)
        for lane in 0..<lanes { opacity[i + lane] = o[lane] }
        var dropped = 0
        for lane in 0..<lanes where !ok[lane] { dropped += 1 }
        return dropped
    }

    /// How many of the splats in `range` (block-aligned start) are unusable, without storing
    /// anything.
    static func countUnusable(_ columns: Columns, range: Range<Int>) -> Int {
        var dropped = 0
        var i = range.lowerBound
        while i < range.upperBound {
            let ok = covarianceBlock(columns, at: i).ok .& lanes(at: i, end: range.upperBound)
            for lane in 0..<min(8, range.upperBound - i) where !ok[lane] { dropped += 1 }
            i += 8
        }
        return dropped
    }
}
