import SplatCore

/// Per-tile, front-to-back splat lists (`rendering.md` 7, 13): one stable radix sort of the
/// visible splats by depth (they arrive in splat-index order, so equal depths keep index order),
/// then a stable counting scatter of each splat into every tile of its rectangle. Each tile's list
/// is thus ordered by (depth, splat index) — the order INRIA's (tile, depth) key sort produces.
struct TileBinner {
    /// Tile t's splats are `entries[start[t] ..< start[t + 1]]`, as indices into `splats`, which
    /// holds the visible splats in front-to-back order — so every tile reads its records at
    /// increasing addresses, instead of one cache miss per (tile, splat) pair.
    struct TileLists {
        let start: AlignedBuffer<Int>
        let entries: AlignedBuffer<UInt32>
        let splats: AlignedBuffer<ProjectedSplat>
        let tileCount: Int
        var pairCount: Int { start[tileCount] }
    }

    /// Most per-block tile counters kept at once (blocks × tiles), bounding scratch memory.
    static let maxCounters = 1 << 22

    static func bin(_ projection: Preprocessor.Output, view: ViewProjection, threads: Int?,
                    scratch: FrameScratch = FrameScratch()) -> TileLists {
        let visible = projection.visibleCount
        let tiles = view.tileCount
        let tilesX = view.tilesX
        let binInfo = projection.binInfo.base

        // Depth keys of the visible splats, in splat-index order. Depths are > near ≥ 0, so the
        // IEEE bits of the float order like the floats.
        FrameScratch.ensure(&scratch.keys, visible)
        FrameScratch.ensure(&scratch.values, visible)
        FrameScratch.ensure(&scratch.scratchKeys, visible)
        FrameScratch.ensure(&scratch.scratchValues, visible)
        let keys = scratch.keys, values = scratch.values
        let scratchKeys = scratch.scratchKeys, scratchValues = scratch.scratchValues
        var chunkOffsets = [Int](), running = 0
        for c in projection.visibleInChunk {
            chunkOffsets.append(running)
            running += c
        }
        chunkOffsets.withUnsafeBufferPointer { offsets in
            Parallel.forEach(iterations: offsets.count, threads: threads) { c in
                let first = c * Preprocessor.chunkSize
                let out = offsets[c]
                for k in 0..<projection.visibleInChunk[c] {
                    keys[out + k] = binInfo[first + k].depth.bitPattern
                    values[out + k] = UInt32(first + k)
                }
            }
        }
        let sorted = RadixSort.sort(keys: keys.base, values: values.base, scratchKeys: scratchKeys.base,
                                    scratchValues: scratchValues.base, count: visible, threads: threads).values

        // Records and tile rectangles in depth order (random reads once per splat, overlapped
        // across iterations, rather than once per pair in the compositor).
        FrameScratch.ensure(&scratch.sortedSplats, visible)
        FrameScratch.ensure(&scratch.rects, visible)
        let splats = scratch.sortedSplats, rects = scratch.rects
        let projected = projection.projected.base
        Parallel.forEachChunk(count: visible, chunkSize: 16384, threads: threads) { _, range in
            for k in range {
                let slot = Int(sorted[k])
                splats[k] = projected[slot]
                let info = binInfo[slot]
                rects[k] = SIMD4(info.tileMinX, info.tileMinY, info.tileMaxX, info.tileMaxY)
            }
        }

        // Stable scatter: blocks of the depth-sorted list count their pairs per tile; a scan in
        // (tile, block) order gives each block its write position inside each tile's range.
        var blockSize = max(16384, (visible + 63) / 64)
        blockSize = max(blockSize, (visible + max(1, maxCounters / tiles) - 1) / max(1, maxCounters / tiles))
        let blocks = max(1, (visible + blockSize - 1) / blockSize)
        FrameScratch.ensure(&scratch.counters, blocks * tiles)
        let counters = scratch.counters
        counters.base.initialize(repeating: 0, count: blocks * tiles)
        Parallel.forEachChunk(count: visible, chunkSize: blockSize, threads: threads) { b, range in
            let counts = counters.base + b * tiles
            for k in range {
                let rect = rects[k]
                for ty in Int(rect[1])..<Int(rect[3]) {
                    let row = counts + ty * tilesX
                    for tx in Int(rect[0])..<Int(rect[2]) { row[tx] += 1 }
                }
            }
        }
        let start = AlignedBuffer<Int>(count: tiles + 1)
        var total = 0
        for t in 0..<tiles {
            start[t] = total
            for b in 0..<blocks {
                let c = counters[b * tiles + t]
                counters[b * tiles + t] = total
                total += c
            }
        }
        start[tiles] = total
        FrameScratch.ensure(&scratch.entries, total)
        let entries = scratch.entries
        Parallel.forEachChunk(count: visible, chunkSize: blockSize, threads: threads) { b, range in
            let offsets = counters.base + b * tiles
            for k in range {
                let rect = rects[k]
                for ty in Int(rect[1])..<Int(rect[3]) {
                    let row = offsets + ty * tilesX
                    for tx in Int(rect[0])..<Int(rect[2]) {
                        entries[row[tx]] = UInt32(truncatingIfNeeded: k)
                        row[tx] += 1
                    }
                }
            }
        }
        return TileLists(start: start, entries: entries, splats: splats, tileCount: tiles)
    }
}
