/// Square root on eight lanes. `SIMD8<Float>.squareRoot()` does not vectorise on Linux: each
/// lane becomes a scalar sqrtss plus a libm call for errno on negative input. This uses the
/// classic reciprocal-square-root estimate, two Newton steps (relative error 5e−6), then one
/// Markstein correction of √x = x·(1/√x), which squares that error: results are within one ulp
/// of the correctly rounded root for positive normal inputs (tests check this), and exactly 0
/// for 0. Negative, infinite and NaN inputs give NaN or garbage; callers mask those lanes.
enum FastSqrt {
    @inline(__always)
    static func sqrt(_ x: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        var y = unsafeBitCast(0x5F37_5A86 &- (bits &>> 1), to: SIMD8<Float>.self)
        let halfX = 0.5 * x
        y = y * (1.5 - halfX * y * y)
        y = y * (1.5 - halfX * y * y)
        let s = x * y
        return s.addingProduct(x - s * s, 0.5 * y)
    }

    /// Scalar form (tests).
    static func sqrt(_ x: Float) -> Float { sqrt(SIMD8(repeating: x))[0] }
}
