/// A 3×3 matrix in Double, by rows: the linear part of node transforms, rotations built from
/// quaternions, and covariances. Double because node matrices compose down a hierarchy and
/// covariances square the scales; results are rounded to Float only when stored.
public struct Matrix3: Sendable, Equatable {
    public var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        rows = (r0, r1, r2)
    }

    public static let identity = Matrix3(rows: SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))

    public static func == (a: Matrix3, b: Matrix3) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    public subscript(row: Int, column: Int) -> Double {
        get { row == 0 ? rows.0[column] : row == 1 ? rows.1[column] : rows.2[column] }
        set {
            switch row {
            case 0: rows.0[column] = newValue
            case 1: rows.1[column] = newValue
            default: rows.2[column] = newValue
            }
        }
    }

    public func column(_ c: Int) -> SIMD3<Double> { SIMD3(rows.0[c], rows.1[c], rows.2[c]) }

    public var transposed: Matrix3 { Matrix3(rows: column(0), column(1), column(2)) }

    public var determinant: Double {
        let (a, b, c) = rows
        return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x)
    }

    public static func * (m: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((m.rows.0 * v).sum(), (m.rows.1 * v).sum(), (m.rows.2 * v).sum())
    }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        func row(_ r: SIMD3<Double>) -> SIMD3<Double> { SIMD3((r * bt.rows.0).sum(), (r * bt.rows.1).sum(), (r * bt.rows.2).sum()) }
        return Matrix3(rows: row(a.rows.0), row(a.rows.1), row(a.rows.2))
    }

    /// The rotation matrix of the unit quaternion (w, x, y, z) (`formats.md` 0.1).
    public init(quaternion q: SIMD4<Double>) {
        let w = q.x, x = q.y, y = q.z, z = q.w
        self.init(rows: SIMD3(1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                  SIMD3(2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                  SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))
    }

    /// The unit quaternion (w, x, y, z), w ≥ 0, of a proper rotation matrix (Shepperd's method:
    /// the largest of the four diagonal combinations is the square root taken, so no division
    /// by a small number).
    public var quaternion: SIMD4<Double> {
        let m = self
        let trace = m[0, 0] + m[1, 1] + m[2, 2]
        var q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4(0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
        } else if m[0, 0] > m[1, 1], m[0, 0] > m[2, 2] {
            let s = (1 + m[0, 0] - m[1, 1] - m[2, 2]).squareRoot() * 2
            q = SIMD4((m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s)
        } else if m[1, 1] > m[2, 2] {
            let s = (1 + m[1, 1] - m[0, 0] - m[2, 2]).squareRoot() * 2
            q = SIMD4((m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s)
        } else {
            let s = (1 + m[2, 2] - m[0, 0] - m[1, 1]).squareRoot() * 2
            q = SIMD4((m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s)
        }
        q /= (q * q).sum().squareRoot()
        return q.x < 0 ? -q : q
    }

    /// Eigenvalues (descending) and unit eigenvectors (the columns of the returned matrix) of a
    /// symmetric matrix, by cyclic Jacobi rotations: robust for the repeated eigenvalues of
    /// isotropic splats, and deterministic.
    public func symmetricEigen() -> (values: SIMD3<Double>, vectors: Matrix3) {
        var a = self
        var v = Matrix3.identity
        for _ in 0..<32 {
            let off = a[0, 1] * a[0, 1] + a[0, 2] * a[0, 2] + a[1, 2] * a[1, 2]
            let diagonal = a[0, 0] * a[0, 0] + a[1, 1] * a[1, 1] + a[2, 2] * a[2, 2]
            if off <= 1e-30 * diagonal || off == 0 { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p, q] != 0 {
                let theta = (a[q, q] - a[p, p]) / (2 * a[p, q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k, p], akq = a[k, q]
                    a[k, p] = c * akp - s * akq
                    a[k, q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p, k], aqk = a[q, k]
                    a[p, k] = c * apk - s * aqk
                    a[q, k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k, p], vkq = v[k, q]
                    v[k, p] = c * vkp - s * vkq
                    v[k, q] = s * vkp + c * vkq
                }
            }
        }
        let order = [0, 1, 2].sorted { a[$0, $0] > a[$1, $1] }
        let values = SIMD3(a[order[0], order[0]], a[order[1], order[1]], a[order[2], order[2]])
        let vectors = Matrix3(rows: SIMD3(v[0, order[0]], v[0, order[1]], v[0, order[2]]),
                              SIMD3(v[1, order[0]], v[1, order[1]], v[1, order[2]]),
                              SIMD3(v[2, order[0]], v[2, order[1]], v[2, order[2]]))
        return (values, vectors)
    }
}
