import SplatCore

/// Where a render scene's colour coefficients live: the DC term as planar R, G, B columns and
/// the non-DC SH bands (coefficient-major, R G B per coefficient, so one splat's SH is one
/// contiguous run) — a decoded scene's own Float32 columns.
struct SplatColours: @unchecked Sendable {
    let red: UnsafePointer<Float>, green: UnsafePointer<Float>, blue: UnsafePointer<Float>
    /// `perSplat` floats a splat (3 per coefficient); the last splat's run may end the array.
    /// nil at SH degree 0.
    let sh: UnsafePointer<Float>?
    let perSplat: Int

    /// DC coefficient of splat `i` as (R, G, B, 0).
    @inline(__always)
    func dcCoefficient(_ i: Int) -> SIMD4<Float> { SIMD4(red[i], green[i], blue[i], 0) }
}
