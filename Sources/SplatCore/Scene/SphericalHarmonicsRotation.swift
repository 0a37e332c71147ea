extension SphericalHarmonics {
    /// Per-band matrices T_l (band l: (2l+1)², row-major, acting on that band's coefficients of one
    /// channel) for the orthogonal map `rows` (p' = M · p): Σ t'_k Y_k(M·d) = Σ t_k Y_k(d) for every
    /// direction d, with t' = T_l · t — exact projections (`SHRotation`), snapped to 0/±1, so
    /// signed permutations (frame changes, mirrors included) give exact sign flips and swaps.
    public static func bandMatrices(rows: [SIMD3<Double>], maxDegree: Int) -> [[Double]] {
        guard maxDegree >= 1, rows.count == 3 else { return [] }
        return SHRotation.bandMatrices(Matrix3(rows: rows[0], rows[1], rows[2]), maxDegree: maxDegree)
    }
}
