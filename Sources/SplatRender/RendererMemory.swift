import SplatCore

extension Renderer {
    /// The most bytes a renderer holds for a scene of `splats` splats rendering frames of
    /// `width`×`height`: the per-scene state (`RenderScene`: covariance and opacity, 28 bytes a
    /// splat, none with `.perFrame`) plus one set of per-frame tables (`FrameScratch`: compositor record, depth and tile
    /// rectangle — 76 bytes a splat — the per-block tile counters, the pair list at its worst case
    /// of min(`maxTilePairs`, splats × tiles) entries with the per-tile sort's scratch for one
    /// task per core, and the 8-bit image). An upper bound known before anything is projected,
    /// which is what admission needs.
    public static func estimatedBytes(splats: Int, width: Int, height: Int,
                                      maxTilePairs: Int = RenderSettings.defaultMaxTilePairs,
                                      preparation: ScenePreparation = .prepared) -> Int {
        let prepared = preparation == .prepared ? 7 * MemoryLayout<Float>.stride : 0
        let tiles = ((width + 15) / 16) * ((height + 15) / 16)
        let pairs = min(maxTilePairs, CheckedSize.mul(splats, tiles) ?? Int.max)
        let counters = min(TileBinner.maxCounters, CheckedSize.mul(tiles, 65) ?? Int.max) * MemoryLayout<Int>.stride
        let image = CheckedSize.mul(CheckedSize.mul(width, height) ?? Int.max, 4) ?? Int.max
        // Each sort task holds two packed 8-byte values per pair of its longest tile, which holds
        // each splat at most once; at worst every concurrent task has such a tile.
        let sortScratch = CheckedSize.mul(min(pairs, splats), 16 * Parallel.processorCount)
        let parts = [CheckedSize.mul(splats, prepared + FrameScratch.bytesPerSlot), CheckedSize.mul(pairs, 4), counters,
                     image, sortScratch]
        return parts.reduce(0) { total, part in part.flatMap { CheckedSize.add(total, $0) } ?? Int.max }
    }
}
