/// A proper change of frame between two named coordinate systems (`formats.md` 7.4–7.6), applied
/// to positions, quaternions and SH coefficients of every band. Derived from the axis letters,
/// not from the reference's bit tests (which are wrong for 96 pairs).
public struct FrameConversion: Sendable, Equatable, CustomStringConvertible {
    /// Rows of the signed permutation M with p_to = M · p_from.
    public let rows: [SIMD3<Float>]
    /// Whether M swaps Y and Z: then M = F · R_x(+90°).
    public let swapsYZ: Bool
    /// The flips F (each ±1) applied after the optional R_x(+90°).
    public let flips: SIMD3<Float>

    /// The conversion taking coordinates in `from` to coordinates in `to`.
    public init(from: CoordinateSystem, to: CoordinateSystem) {
        let (fx, fy, fz) = from.axes
        let (tx, ty, tz) = to.axes
        // M = B_toᵀ · B_from: entry (r, c) = to-axis r · from-axis c.
        let toAxes = [tx, ty, tz]
        let m = toAxes.map { t in SIMD3((t * fx).sum(), (t * fy).sum(), (t * fz).sum()) }
        self.init(rows: m)
    }

    /// A conversion from an explicit signed permutation matrix (rows).
    public init(rows m: [SIMD3<Float>]) {
        precondition(m.count == 3)
        rows = m
        if m[1].y == 0 {
            // M = F · R_x(+90°), R_x(+90°) rows (1,0,0), (0,0,−1), (0,1,0): F = diag(M · R_xᵀ).
            swapsYZ = true
            flips = SIMD3(m[0].x, m[1].z * -1, m[2].y)
        } else {
            swapsYZ = false
            flips = SIMD3(m[0].x, m[1].y, m[2].z)
        }
    }

    public static let identity = FrameConversion(rows: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])
    /// The half turn about X (RUB ↔ RDF, the `--flip` fix): diag(1, −1, −1).
    public static let halfTurnX = FrameConversion(rows: [SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)])

    public var isIdentity: Bool { self == .identity }
    /// Whether the change of frame mirrors (det M = −1), e.g. RUB → LUB.
    public var isMirror: Bool { determinant < 0 }

    public var determinant: Float {
        let a = rows[0], b = rows[1], c = rows[2]
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    /// `other` after `self`: p ↦ other(self(p)).
    public func followed(by other: FrameConversion) -> FrameConversion {
        let r = (0..<3).map { i in
            SIMD3<Float>((0..<3).map { j in (0..<3).reduce(Float(0)) { $0 + other.rows[i][$1] * rows[$1][j] } })
        }
        return FrameConversion(rows: r)
    }

    public var description: String {
        rows.map { "(" + [$0.x, $0.y, $0.z].map { String(Int($0)) }.joined(separator: ",") + ")" }.joined(separator: " ")
    }

    /// M · p.
    @inlinable public func apply(point p: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3((rows[0] * p).sum(), (rows[1] * p).sum(), (rows[2] * p).sum())
    }

    /// The quaternion (w, x, y, z) of the rotation M·R·Mᵀ-equivalent for a splat rotated by q,
    /// so that the covariance becomes M·Σ·Mᵀ (w stays w under flips, 7.4; R_x(+90°) is a left
    /// multiplication, 7.6).
    @inlinable public func apply(quaternion q: SIMD4<Float>) -> SIMD4<Float> {
        var r = q
        if swapsYZ {
            let s: Float = 0.7071067811865476
            r = SIMD4(s * (q.x - q.y), s * (q.x + q.y), s * (q.z - q.w), s * (q.z + q.w))
        }
        let f = flips
        return SIMD4(r.x, f.y * f.z * r.y, f.x * f.z * r.z, f.x * f.y * r.w)
    }

    /// Per-band SH matrices (band l: (2l+1)², row-major, acting on band-local coefficients) such
    /// that Σ t'_k Y_k(M·d) = Σ t_k Y_k(d) for every direction d (7.6), exact (`SHRotation`).
    public func shBandMatrices(maxDegree: Int) -> [[Double]] {
        SphericalHarmonics.bandMatrices(rows: rows.map { SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z)) },
                                        maxDegree: maxDegree)
    }

    /// Applies the conversion to every splat of `scene` in place (positions, rotations, SH).
    public func apply(to scene: SplatScene, threads: Int? = nil) {
        if isIdentity { return }
        scene.quantizedSH?.transform(by: rows.map { SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z)) })
        let dim = scene.shCoefficientsPerChannel
        let bands = shBandMatrices(maxDegree: scene.shDegree).map { $0.map(Float.init) }
        let diagonalSigns: [Float]? = bands.allSatisfy(Self.isDiagonal) ? bands.flatMap { m in
            let n = Int(Double(m.count).squareRoot())
            return (0..<n).map { m[$0 * n + $0] }
        } : nil
        let px = scene.x, py = scene.y, pz = scene.z
        let qw = scene.rotW, qx = scene.rotX, qy = scene.rotY, qz = scene.rotZ
        let sh = scene.sh
        Parallel.forEachChunk(count: scene.count, chunkSize: 16384, threads: threads) { _, range in
            var scratch = [Float](repeating: 0, count: 9)
            for i in range {
                let p = apply(point: SIMD3(px[i], py[i], pz[i]))
                px[i] = p.x; py[i] = p.y; pz[i] = p.z
                let q = apply(quaternion: SIMD4(qw[i], qx[i], qy[i], qz[i]))
                qw[i] = q.x; qx[i] = q.y; qy[i] = q.z; qz[i] = q.w
                guard dim > 0 else { continue }
                let base = i * dim * 3
                if let signs = diagonalSigns {
                    for k in 0..<dim where signs[k] != 1 {
                        sh[base + 3 * k] *= signs[k]; sh[base + 3 * k + 1] *= signs[k]; sh[base + 3 * k + 2] *= signs[k]
                    }
                    continue
                }
                for (bi, m) in bands.enumerated() {
                    let l = bi + 1, n = 2 * l + 1, lo = l * l - 1
                    for c in 0..<3 {
                        for r in 0..<n {
                            var acc: Float = 0
                            for k in 0..<n { acc += m[r * n + k] * sh[base + 3 * (lo + k) + c] }
                            scratch[r] = acc
                        }
                        for r in 0..<n { sh[base + 3 * (lo + r) + c] = scratch[r] }
                    }
                }
            }
        }
    }

    private static func isDiagonal(_ m: [Float]) -> Bool {
        let n = Int(Double(m.count).squareRoot())
        for r in 0..<n { for c in 0..<n where r != c && m[r * n + c] != 0 { return false } }
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
