// The standard library's `clamped`/`pointwiseMin` on SIMD floats are implemented lane by lane
// with NaN handling and do not vectorise (scalar compares and branches per lane in release
// builds); compare-and-blend compiles to vcmpps/vblendvps. NaN lanes pass through unchanged.

extension SIMD8 where Scalar == Float {
    @inline(__always) func atLeast(_ lo: Float) -> Self { replacing(with: Self(repeating: lo), where: self .< lo) }
    @inline(__always) func atMost(_ hi: Float) -> Self { replacing(with: Self(repeating: hi), where: self .> hi) }
    @inline(__always) func atLeast(_ lo: Self) -> Self { replacing(with: lo, where: self .< lo) }
    @inline(__always) func atMost(_ hi: Self) -> Self { replacing(with: hi, where: self .> hi) }
    @inline(__always) func within(_ lo: Float, _ hi: Float) -> Self { atLeast(lo).atMost(hi) }
}

extension SIMDMask where Storage == SIMD8<Int32> {
    /// Whether any lane is set. The standard library's `any` reduces with `min()`, which in the
    /// compositor's half-row loop stayed an out-of-line call per blended half row (3 % of a
    /// frame); OR-ing the mask's four 64-bit words compiles to one `vptest`.
    @inline(__always) var anyLane: Bool {
        let words = unsafeBitCast(self, to: SIMD4<UInt64>.self)
        return (words[0] | words[1] | words[2] | words[3]) != 0
    }
}
