/// Eigen-decomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations: a fixed sweep order
/// and a fixed stopping rule, so the same matrix always gives the same vectors (signs included).
struct SymmetricEigen3 {
    /// Eigenvalues, ascending.
    let values: SIMD3<Double>
    /// Unit eigenvectors, `vectors[k]` for `values[k]`.
    let vectors: [SIMD3<Double>]

    /// `m` as rows (only the upper triangle is read).
    init(_ m: [SIMD3<Double>]) {
        var a = [[m[0].x, m[0].y, m[0].z], [m[0].y, m[1].y, m[1].z], [m[0].z, m[1].z, m[2].z]]
        var v = [[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]
        for _ in 0..<32 {
            let off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
            let scale = a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]
            if off <= 1e-30 * max(scale, 1e-300) { break }
            for (p, q) in [(0, 1), (0, 2), (1, 2)] where a[p][q] != 0 {
                let theta = (a[q][q] - a[p][p]) / (2 * a[p][q])
                let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot(), s = t * c
                for k in 0..<3 {
                    let akp = a[k][p], akq = a[k][q]
                    a[k][p] = c * akp - s * akq
                    a[k][q] = s * akp + c * akq
                }
                for k in 0..<3 {
                    let apk = a[p][k], aqk = a[q][k]
                    a[p][k] = c * apk - s * aqk
                    a[q][k] = s * apk + c * aqk
                }
                for k in 0..<3 {
                    let vkp = v[k][p], vkq = v[k][q]
                    v[k][p] = c * vkp - s * vkq
                    v[k][q] = s * vkp + c * vkq
                }
            }
        }
        let diagonal: [Double] = [a[0][0], a[1][1], a[2][2]]
        let order = [0, 1, 2].sorted { (i: Int, j: Int) -> Bool in
            diagonal[i] < diagonal[j] || (diagonal[i] == diagonal[j] && i < j)
        }
        values = SIMD3(diagonal[order[0]], diagonal[order[1]], diagonal[order[2]])
        vectors = order.map { k in
            var e = SIMD3(v[0][k], v[1][k], v[2][k])
            // A fixed sign (largest component positive) so callers never see a solver's whim.
            let magnitudes = [abs(e.x), abs(e.y), abs(e.z)]
            let largest = magnitudes.firstIndex(of: magnitudes.max()!)!
            if e[largest] < 0 { e = -e }
            return e
        }
    }
}
