/// What the compositor reads for one visible splat (48 bytes, written once per frame).
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
    /// √(−1/rowCoef) with rowCoef = −½(C − B²/A): on a row at offset dy the exponent peaks at
    /// dy²·rowCoef, so it stays below a level p < 0 wherever |dy| > √(−p)·rowReach. +∞ when the
    /// float conic is too degenerate to bound (no rows are skipped then).
    var rowReach: Float
    /// The same for columns: √(−1/columnCoef), columnCoef = −½(A − B²/C).
    var columnReach: Float
}

/// What binning reads for one visible splat: depth for the sort, the splat's index in the scene,
/// and its tile rectangle [minX, maxX) × [minY, maxY).
struct SplatBinInfo {
    var depth: Float
    var index: UInt32
    var tileMinX: UInt16
    var tileMinY: UInt16
    var tileMaxX: UInt16
    var tileMaxY: UInt16
}
