/// What the compositor reads for one visible splat (64 bytes, written once per frame).
///
/// Everything a (tile, splat) pair needs is here, so a pair costs one record fetch and a few
/// subtractions before its first row: the row and column reaches are bounded once per splat over
/// its whole tile rectangle rather than once per tile (the profile had a third of the stress
/// frame's compositing in that per-pair set-up).
struct ProjectedSplat {
    /// Projected centre in pixel units; pixel (i, j) is sampled at (i + 0.5, j + 0.5).
    var u: Float
    var v: Float
    /// Conic (inverse dilated 2D covariance) [[A, B], [B, C]].
    var conicA: Float
    var conicB: Float
    var conicC: Float
    /// o_eff: opacity after the anti-aliasing compensation.
    var opacity: Float
    var red: Float
    var green: Float
    var blue: Float
    /// −ln(255·o_eff) − 1e−3: wherever the Gaussian's exponent is below this, α < 1/255 for sure,
    /// so whole SIMD vectors of pixels can skip exp (`rendering.md` 13).
    var powerThreshold: Float
    /// Half-widths in pixels around (u, v) outside of which no pixel of any tile of the splat's
    /// rectangle can pass `powerThreshold`: rows with |dy| > rowReach and columns with
    /// |dx| > columnReach are skipped. +∞ when the float conic is too degenerate to bound.
    /// See `Preprocessor.reaches` for the margins.
    var rowReach: Float
    var columnReach: Float
    /// Pads the record to one 64-byte cache line. The compositor reads records in depth order,
    /// all over the table; at 48 bytes half of them straddled two lines, and the load of the
    /// record batch was a tenth of biker 1024²'s frame. Aligned whole lines made compositing
    /// faster on biker 1024² and on the stress frame, and the preprocessor's writes too
    /// (whole-line stores), for 16 more bytes per visible splat (54 MB on 3.4 M splats).
    var reserved: SIMD4<Float> = .zero
}

/// The tile rectangle [minX, maxX) × [minY, maxY) of one visible splat, for binning.
typealias TileRect = SIMD4<UInt16>
