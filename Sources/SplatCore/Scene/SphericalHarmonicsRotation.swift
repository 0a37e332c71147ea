import Foundation

extension SphericalHarmonics {
    /// Per-band matrices T_l (band l: (2l+1)², row-major, acting on that band's coefficients of one
    /// channel) for the linear map `rows` (p' = M · p): Σ t'_k Y_k(M·d) = Σ t_k Y_k(d) for every
    /// direction d, with t' = T_l · t. Solved by least squares over 64 fixed directions in Double
    /// (exact for rotations and reflections, whose bands are closed) and snapped to exact 0/±1, so
    /// signed permutations give exact sign flips and swaps.
    public static func bandMatrices(rows: [SIMD3<Double>], maxDegree: Int) -> [[Double]] {
        guard maxDegree >= 1, rows.count == 3 else { return [] }
        func apply(_ d: SIMD3<Double>) -> SIMD3<Double> { SIMD3((rows[0] * d).sum(), (rows[1] * d).sum(), (rows[2] * d).sum()) }
        let samples = sampleDirections.map { (basis(apply($0)), basis($0)) }
        return (1...min(maxDegree, 4)).map { l in
            let n = 2 * l + 1, lo = l * l - 1
            var ata = [Double](repeating: 0, count: n * n), atb = [Double](repeating: 0, count: n * n)
            for (a, b) in samples {
                for r in 0..<n {
                    for c in 0..<n {
                        ata[r * n + c] += a[lo + r] * a[lo + c]
                        atb[r * n + c] += a[lo + r] * b[lo + c]
                    }
                }
            }
            var t = solve(ata, atb, n)
            for i in t.indices {
                for v in [-1.0, 0.0, 1.0] where abs(t[i] - v) < 1e-9 { t[i] = v }
            }
            return t
        }
    }

    /// Fixed, well-spread unit directions (a Fibonacci sphere), so results are reproducible.
    private static let sampleDirections: [SIMD3<Double>] = (0..<64).map { i in
        let golden = Double.pi * (3 - 5.0.squareRoot())
        let y = 1 - 2 * (Double(i) + 0.5) / 64
        let r = (1 - y * y).squareRoot()
        return SIMD3(r * cos(golden * Double(i)), y, r * sin(golden * Double(i)))
    }

    /// Solves A·X = B for n×n row-major A and B (Gaussian elimination with partial pivoting).
    private static func solve(_ a0: [Double], _ b0: [Double], _ n: Int) -> [Double] {
        var a = a0, b = b0
        for col in 0..<n {
            var pivot = col
            for r in col + 1..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
            if pivot != col {
                for c in 0..<n { a.swapAt(col * n + c, pivot * n + c); b.swapAt(col * n + c, pivot * n + c) }
            }
            let p = a[col * n + col]
            for r in 0..<n where r != col {
                let f = a[r * n + col] / p
                if f == 0 { continue }
                for c in 0..<n { a[r * n + c] -= f * a[col * n + c]; b[r * n + c] -= f * b[col * n + c] }
            }
        }
        var x = b
        for r in 0..<n { for c in 0..<n { x[r * n + c] = b[r * n + c] / a[r * n + r] } }
        return x
    }
}
