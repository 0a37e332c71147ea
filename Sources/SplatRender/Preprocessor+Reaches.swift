// `reaches` and `reachedTiles` stay calls on purpose: the projection loop is short of registers,
// and a call is where it spills least. Forced inline (`@_transparent`), preprocessing the stress
// frame took 167–226 ms against 110–130 ms, in alternating runs.
extension Preprocessor {
    /// Row and column reaches of a splat valid for every tile of its rectangle (see
    /// `ProjectedSplat.rowReach`). On a row at offset dy the exponent peaks at dy²·rowCoef
    /// (rowCoef = −½(C − B²/A)), so it stays below a level p < 0 wherever |dy| > √(−p)·rowUnit,
    /// rowUnit = √(−1/rowCoef); likewise for columns. The level is the cutoff lowered by the float
    /// error of the compositor's exponent, which grows with the size of its terms (cancellation):
    /// they are bounded here with the rectangle's pixel centres farthest from (u, v), which bound
    /// those of any one tile. The slack covers the rounding of these sums.
    @inline(never)
    static func reaches(u: SIMD8<Float>, v: SIMD8<Float>, conicA: SIMD8<Float>, conicB: SIMD8<Float>, conicC: SIMD8<Float>,
                        rect: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>), threshold: SIMD8<Float>,
                        rowUnit: SIMD8<Float>, columnUnit: SIMD8<Float>) -> (row: SIMD8<Float>, column: SIMD8<Float>) {
        let (minX, minY, maxX, maxY) = rect
        let dxMax = magnitude(u - (minX * 16 + 0.5)).atLeast(magnitude(u - (maxX * 16 - 0.5)))
        let dyMax = magnitude(v - (minY * 16 + 0.5)).atLeast(magnitude(v - (maxY * 16 - 0.5)))
        let terms = conicA * dxMax * dxMax + conicC * dyMax * dyMax + 2 * magnitude(conicB) * dxMax * dyMax
        let level = threshold - 0.01 - 2e-6 * terms
        let depth = FastSqrt.sqrt(-level)
        let row = depth * rowUnit * (1 + 1e-4) + 1e-3 + 1e-6 * magnitude(v)
        let column = depth * columnUnit * (1 + 1e-4) + 1e-3 + 1e-6 * magnitude(u)
        return (row, column)
    }

    /// The rectangle narrowed to the tiles holding a pixel centre within the reaches; it may be
    /// left empty (a splat between pixel centres), but never inverted.
    ///
    /// This is the opacity-aware box (`rendering.md` 6.3) made tight: the box, rounded outward to
    /// whole tiles with a pixel of margin, left about a sixth of its pairs (stress scene, 512²)
    /// reaching no pixel centre, and the compositor fetched each such record only to find its
    /// first row past its last. Tile t's centres run from 16t + 0.5 to 16t + 15.5, so it keeps a
    /// column within reach exactly when u − reach ≤ 16t + 15.5 and u + reach ≥ 16t + 0.5. The margin widens that by more than the rounding by which the
    /// compositor's own test, computed per tile, can differ; a tile dropped here is one the
    /// compositor would have skipped, so the image cannot change (`ExactCullingTests`).
    @inline(never)
    static func reachedTiles(u: SIMD8<Float>, v: SIMD8<Float>, rowReach: SIMD8<Float>, columnReach: SIMD8<Float>,
                             rect: (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>))
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var (minX, minY, maxX, maxY) = rect
        let spanX = columnReach + (0.01 + 1e-6 * (magnitude(u) + columnReach))
        let spanY = rowReach + (0.01 + 1e-6 * (magnitude(v) + rowReach))
        // Infinite or NaN reaches fail every comparison and leave the rectangle as it is.
        let lowX = ((u - spanX - 15.5) * 0.0625).rounded(.up), highX = ((u + spanX - 0.5) * 0.0625).rounded(.down) + 1
        let lowY = ((v - spanY - 15.5) * 0.0625).rounded(.up), highY = ((v + spanY - 0.5) * 0.0625).rounded(.down) + 1
        // Each bound moves only inward and stays inside the rectangle, so it can empty it but
        // never invert it or leave the grid.
        minX = minX.replacing(with: lowX.atMost(maxX), where: lowX .> minX)
        minY = minY.replacing(with: lowY.atMost(maxY), where: lowY .> minY)
        maxX = maxX.replacing(with: highX.atLeast(minX), where: highX .< maxX)
        maxY = maxY.replacing(with: highY.atLeast(minY), where: highY .< maxY)
        return (minX, minY, maxX, maxY)
    }

    @inline(__always)
    private static func magnitude(_ x: SIMD8<Float>) -> SIMD8<Float> { x.replacing(with: -x, where: x .< 0) }
}
