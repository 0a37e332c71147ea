import SplatCore

extension Renderer {
    /// The most bytes a renderer holds for a scene of `splats` splats rendering frames of
    /// `width`×`height`: the per-scene state (`PreparedScene`: covariance and opacity, 28 bytes a
    /// splat) plus one set of per-frame tables (`FrameScratch`: projected record, bin info, sort
    /// keys and values with their scratch, depth-sorted records and tile rectangles — 136 bytes a
    /// splat — the per-block tile counters, the pair list at its worst case of
    /// min(`maxTilePairs`, splats × tiles) entries, and the 8-bit image). An upper bound known
    /// before anything is projected, which is what admission needs.
    public static func estimatedBytes(splats: Int, width: Int, height: Int,
                                      maxTilePairs: Int = RenderSettings.defaultMaxTilePairs) -> Int {
        let prepared = 7 * MemoryLayout<Float>.stride
        let frame = 2 * MemoryLayout<ProjectedSplat>.stride + MemoryLayout<SplatBinInfo>.stride
            + 4 * MemoryLayout<UInt32>.stride + MemoryLayout<SIMD4<UInt16>>.stride
        let tiles = ((width + 15) / 16) * ((height + 15) / 16)
        let pairs = min(maxTilePairs, CheckedSize.mul(splats, tiles) ?? Int.max)
        let counters = min(TileBinner.maxCounters, CheckedSize.mul(tiles, 65) ?? Int.max) * MemoryLayout<Int>.stride
        let image = CheckedSize.mul(CheckedSize.mul(width, height) ?? Int.max, 4) ?? Int.max
        let parts = [CheckedSize.mul(splats, prepared + frame), CheckedSize.mul(pairs, 4), counters, image]
        return parts.reduce(0) { total, part in part.flatMap { CheckedSize.add(total, $0) } ?? Int.max }
    }
}
