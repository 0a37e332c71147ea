import Foundation

/// Any proper rotation of a whole scene — positions, splat rotations and the SH of every band —
/// where `FrameConversion` covers only the signed permutations between the 16 named frames (and
/// among those only the ones that keep X on X). The up alignment needs the others (a scene whose
/// up is stored on X), and the orientation tests need arbitrary angles.
///
/// Matrices are row-major `p' = R · p`; splat rotations compose as `q' = q_R ⊗ q`, so each
/// covariance becomes R Σ Rᵀ.
public struct SceneRotation: Sendable, Equatable, CustomStringConvertible {
    /// Rows of R (orthonormal, det +1).
    public let rows: [SIMD3<Double>]

    public static let identity = SceneRotation(trusted: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)])

    /// A rotation from its rows, or nil unless they are orthonormal with determinant +1 (to 1e-6).
    public init?(rows m: [SIMD3<Double>]) {
        guard m.count == 3, m.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else { return nil }
        for i in 0..<3 {
            for j in 0..<3 where abs((m[i] * m[j]).sum() - (i == j ? 1 : 0)) > 1e-6 { return nil }
        }
        guard abs(Self.determinant(m) - 1) <= 1e-6 else { return nil }
        rows = m
    }

    private init(trusted m: [SIMD3<Double>]) { rows = m }

    /// The rotation by `angle` radians about `axis` (right-handed; `axis` need not be unit).
    public init(axis: SIMD3<Double>, angle: Double) {
        let length = (axis * axis).sum().squareRoot()
        guard length > 0, length.isFinite, angle.isFinite else { self = .identity; return }
        let k = axis / length, c = cos(angle), s = sin(angle), t = 1 - c
        rows = [
            SIMD3(c + k.x * k.x * t, k.x * k.y * t - k.z * s, k.x * k.z * t + k.y * s),
            SIMD3(k.y * k.x * t + k.z * s, c + k.y * k.y * t, k.y * k.z * t - k.x * s),
            SIMD3(k.z * k.x * t - k.y * s, k.z * k.y * t + k.x * s, c + k.z * k.z * t),
        ]
    }

    /// The rotation of a proper frame conversion (nil when it mirrors).
    public init?(_ conversion: FrameConversion) {
        self.init(rows: conversion.rows.map { SIMD3(Double($0.x), Double($0.y), Double($0.z)) })
    }

    /// The unit quaternion (w, x, y, z) of R, with w ≥ 0.
    public init(quaternion q: SIMD4<Double>) {
        let n = (q * q).sum().squareRoot()
        guard n > 0, n.isFinite else { self = .identity; return }
        let w = q.x / n, x = q.y / n, y = q.z / n, z = q.w / n
        rows = [
            SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)),
        ]
    }

    /// The smallest rotation taking direction `from` onto direction `to`. When they are opposite,
    /// the half turn about the first of X, Z, Y perpendicular to `from` (so flipping a Y up keeps X
    /// where it is, as `--flip` does). Identity when either is zero or not finite.
    public static func aligning(_ from: SIMD3<Double>, onto to: SIMD3<Double>) -> SceneRotation {
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double>? {
            let l = (v * v).sum().squareRoot()
            return l > 0 && l.isFinite ? v / l : nil
        }
        guard let a = unit(from), let b = unit(to) else { return .identity }
        let cosine = min(max((a * b).sum(), -1), 1)
        let axis = cross(a, b)
        if (axis * axis).sum() > 1e-24 { return SceneRotation(axis: axis, angle: acos(cosine)) }
        if cosine > 0 { return .identity }
        let candidates = [SIMD3<Double>(1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, 1, 0)]
        let perpendicular = candidates.first { abs(($0 * a).sum()) < 1e-9 }
            ?? unit(cross(a, abs(a.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)))!
        return SceneRotation(axis: perpendicular, angle: .pi)
    }

    public var isIdentity: Bool { self == .identity }

    /// Rᵀ.
    public var inverse: SceneRotation {
        SceneRotation(trusted: (0..<3).map { c in SIMD3(rows[0][c], rows[1][c], rows[2][c]) })
    }

    /// `other` after `self`: p ↦ other(self(p)).
    public func followed(by other: SceneRotation) -> SceneRotation {
        SceneRotation(trusted: (0..<3).map { i in
            SIMD3((0..<3).map { j in (0..<3).reduce(0.0) { $0 + other.rows[i][$1] * rows[$1][j] } })
        })
    }

    /// R · p.
    @inlinable public func apply(point p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((rows[0] * p).sum(), (rows[1] * p).sum(), (rows[2] * p).sum())
    }

    /// The quaternion (w, x, y, z) of R (Shepperd's method; w ≥ 0).
    public var quaternion: SIMD4<Double> {
        let m = rows
        let trace = m[0].x + m[1].y + m[2].z
        var q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4(s / 4, (m[2].y - m[1].z) / s, (m[0].z - m[2].x) / s, (m[1].x - m[0].y) / s)
        } else if m[0].x > m[1].y && m[0].x > m[2].z {
            let s = (1 + m[0].x - m[1].y - m[2].z).squareRoot() * 2
            q = SIMD4((m[2].y - m[1].z) / s, s / 4, (m[0].y + m[1].x) / s, (m[0].z + m[2].x) / s)
        } else if m[1].y > m[2].z {
            let s = (1 + m[1].y - m[0].x - m[2].z).squareRoot() * 2
            q = SIMD4((m[0].z - m[2].x) / s, (m[0].y + m[1].x) / s, s / 4, (m[1].z + m[2].y) / s)
        } else {
            let s = (1 + m[2].z - m[0].x - m[1].y).squareRoot() * 2
            q = SIMD4((m[1].x - m[0].y) / s, (m[0].z + m[2].x) / s, (m[1].z + m[2].y) / s, s / 4)
        }
        if q.x < 0 { q = -q }
        return q / (q * q).sum().squareRoot()
    }

    /// q_R ⊗ q for a splat rotation q = (w, x, y, z).
    @inlinable public func apply(quaternion q: SIMD4<Double>) -> SIMD4<Double> {
        Self.multiply(quaternion, q)
    }

    /// Hamilton product a ⊗ b of (w, x, y, z) quaternions.
    @inlinable public static func multiply(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
        SIMD4(a.x * b.x - a.y * b.y - a.z * b.z - a.w * b.w,
              a.x * b.y + a.y * b.x + a.z * b.w - a.w * b.z,
              a.x * b.z - a.y * b.w + a.z * b.x + a.w * b.y,
              a.x * b.w + a.y * b.z - a.z * b.y + a.w * b.x)
    }

    /// Per-band SH matrices (see `SphericalHarmonics.bandMatrices`): t' = T_l · t per band.
    public func shBandMatrices(maxDegree: Int) -> [[Double]] {
        SphericalHarmonics.bandMatrices(rows: rows, maxDegree: maxDegree)
    }

    /// Rotates every splat of `scene` in place: positions, rotations (renormalised), SH.
    public func apply(to scene: SplatScene, threads: Int? = nil) {
        if isIdentity { return }
        scene.quantizedSH?.transform(by: rows)
        let r = rows.map { SIMD3<Float>(Float($0.x), Float($0.y), Float($0.z)) }
        let r0 = r[0], r1 = r[1], r2 = r[2]
        let qr = quaternion
        let qf = SIMD4<Float>(Float(qr.x), Float(qr.y), Float(qr.z), Float(qr.w))
        let dim = scene.shCoefficientsPerChannel
        // All bands in one flat table, band l starting at Σ_{k<l} (2k+1)².
        let table = shBandMatrices(maxDegree: scene.shDegree).flatMap { $0.map(Float.init) }
        let px = scene.x, py = scene.y, pz = scene.z
        let qw = scene.rotW, qx = scene.rotX, qy = scene.rotY, qz = scene.rotZ
        let sh = scene.sh
        let degree = scene.shDegree
        _ = table.withUnsafeBufferPointer { m in
            Parallel.forEachChunk(count: scene.count, chunkSize: 16384, threads: threads) { _, range in
                // One scratch band per chunk, not per splat.
                var scratchStorage = [Float](repeating: 0, count: 9)
                scratchStorage.withUnsafeMutableBufferPointer { scratch in
                    for i in range {
                        let p = SIMD3(px[i], py[i], pz[i])
                        px[i] = (r0 * p).sum(); py[i] = (r1 * p).sum(); pz[i] = (r2 * p).sum()
                        let a = qf, b = SIMD4(qw[i], qx[i], qy[i], qz[i])
                        var q = SIMD4(a.x * b.x - a.y * b.y - a.z * b.z - a.w * b.w,
                                      a.x * b.y + a.y * b.x + a.z * b.w - a.w * b.z,
                                      a.x * b.z - a.y * b.w + a.z * b.x + a.w * b.y,
                                      a.x * b.w + a.y * b.z - a.z * b.y + a.w * b.x)
                        let norm = (q * q).sum().squareRoot()
                        if norm > 0 && norm.isFinite { q /= norm }
                        qw[i] = q.x; qx[i] = q.y; qy[i] = q.z; qz[i] = q.w
                        guard dim > 0 else { continue }
                        let base = i * dim * 3
                        var offset = 0
                        for l in 1...degree {
                            let n = 2 * l + 1, lo = l * l - 1
                            for c in 0..<3 {
                                for row in 0..<n {
                                    var acc: Float = 0
                                    for k in 0..<n { acc += m[offset + row * n + k] * sh[base + 3 * (lo + k) + c] }
                                    scratch[row] = acc
                                }
                                for row in 0..<n { sh[base + 3 * (lo + row) + c] = scratch[row] }
                            }
                            offset += n * n
                        }
                    }
                }
            }
        }
    }

    public var description: String {
        rows.map { "(" + [$0.x, $0.y, $0.z].map { String(format: "%.4f", $0) }.joined(separator: ",") + ")" }
            .joined(separator: " ")
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    private static func determinant(_ m: [SIMD3<Double>]) -> Double {
        (m[0] * cross(m[1], m[2])).sum()
    }
}
