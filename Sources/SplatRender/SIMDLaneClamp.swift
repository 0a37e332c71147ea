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
