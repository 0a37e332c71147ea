import SplatCore

/// Per-tile, front-to-back splat lists (`rendering.md` 7, 13): a stable counting scatter of
/// every visible splat's slot into each tile of its rectangle, in slot (= splat index) order,
/// then each tile's list sorted by depth on its own (`TileDepthSort`). Each tile's list is thus
/// ordered by (depth, splat index) — the order INRIA's (tile, depth) key sort produces.
///
/// Nothing is copied into depth order: the compositor reads each pair's record from the
/// preprocessor's table through its slot. A tile's records are a sparse subset of the frame's
/// either way, so a depth-ordered copy saved no cache misses, and it cost a random-access pass
/// and 64 bytes a splat.
struct TileBinner {
    /// Tile t's splats are `entries[start[t] ..< start[t + 1]]`, as slots into `splats`.
    struct TileLists {
        let start: AlignedBuffer<Int>
        let entries: AlignedBuffer<UInt32>
        let splats: AlignedBuffer<ProjectedSplat>
        let tileCount: Int
        var pairCount: Int { start[tileCount] }
    }

    /// Most per-block tile counters kept at once (blocks × tiles), bounding scratch memory.
    static let maxCounters = 1 << 22
    /// Tiles per task of the per-tile sort.
    static let tilesPerSortTask = 16

    /// A cancelled token stops the per-tile sort between tasks; the renderer then throws.
    static func bin(_ projection: Preprocessor.Output, view: ViewProjection, threads: Int?,
                    scratch: FrameScratch = FrameScratch(), cancellation: CancellationToken? = nil) -> TileLists {
        let tiles = view.tileCount
        let tilesX = view.tilesX
        let rects = projection.rects.base
        let chunkSize = Preprocessor.chunkSize
        let visibleInChunk = projection.visibleInChunk
        let chunks = visibleInChunk.count

        // Blocks of preprocessor chunks count their pairs per tile; a scan in (tile, block) order
        // gives each block its write position inside each tile's range, so the scatter keeps
        // slot order within every tile. Block boundaries depend only on the scene and the image.
        var chunksPerBlock = max(1, (chunks + 63) / 64)
        let blocksAllowed = max(1, maxCounters / tiles)
        chunksPerBlock = max(chunksPerBlock, (chunks + blocksAllowed - 1) / blocksAllowed)
        let blocks = max(1, (chunks + chunksPerBlock - 1) / chunksPerBlock)
        FrameScratch.ensure(&scratch.counters, blocks * tiles)
        let counters = scratch.counters
        counters.base.initialize(repeating: 0, count: blocks * tiles)
        return visibleInChunk.withUnsafeBufferPointer { visible in
            // Every (slot, tile) pair of block b, in slot order, with the block's counter for
            // the tile: the counting pass and the scatter walk the pairs the same way.
            @inline(__always) func forEachPair(ofBlock b: Int, _ body: (Int, UnsafeMutablePointer<Int>) -> Void) {
                let blockCounters = counters.base + b * tiles
                for c in (b * chunksPerBlock)..<min(chunks, (b + 1) * chunksPerBlock) {
                    let first = c * chunkSize
                    for slot in first..<(first + visible[c]) {
                        // One loop over the rectangle's tiles, stepping to the next row without a
                        // branch: nested loops over rows and columns mispredicted their exits
                        // about twice a splat (rectangles are mostly 1-3 tiles a side), the
                        // larger part of binning's time (cachegrind's branch simulation).
                        let rect = rects[slot]
                        let left = Int(rect[0]), right = Int(rect[2])
                        let tiles = (right &- left) &* (Int(rect[3]) &- Int(rect[1]))
                        guard tiles > 0 else { continue }
                        var row = blockCounters + Int(rect[1]) &* tilesX, tx = left
                        for _ in 0..<tiles {
                            body(slot, row + tx)
                            tx &+= 1
                            let wraps = tx == right
                            tx = wraps ? left : tx
                            row = wraps ? row + tilesX : row
                        }
                    }
                }
            }
            Parallel.forEach(iterations: blocks, threads: threads) { b in
                forEachPair(ofBlock: b) { _, counter in counter.pointee += 1 }
            }
            // Each tile's start, then each block's write position inside the tile's range. Both
            // passes walk the counters block after block along the row of tiles, in memory order:
            // walking each tile down its column of blocks read a new cache line every step and
            // took 0.55-0.6 ms of biker 1024²'s bin + sort; this takes 0.04-0.06 ms (one thread,
            // which beat splitting it: 0.09-0.11 ms on two).
            let start = AlignedBuffer<Int>(count: tiles + 1, zeroed: true)
            for b in 0..<blocks {
                let row = counters.base + b &* tiles
                for t in 0..<tiles { start[t] &+= row[t] }
            }
            var total = 0
            for t in 0..<tiles {
                let count = start[t]
                start[t] = total
                total &+= count
            }
            start[tiles] = total
            // Each tile's next write position, from its start, block after block.
            let next = AlignedBuffer<Int>(count: tiles)
            next.base.update(from: start.base, count: tiles)
            for b in 0..<blocks {
                let row = counters.base + b &* tiles
                for t in 0..<tiles {
                    let count = row[t]
                    row[t] = next[t]
                    next[t] &+= count
                }
            }
            FrameScratch.ensure(&scratch.entries, total)
            let entries = scratch.entries
            // The counters now hold each block's write position inside each tile's range.
            Parallel.forEach(iterations: blocks, threads: threads) { b in
                forEachPair(ofBlock: b) { slot, position in
                    entries[position.pointee] = UInt32(truncatingIfNeeded: slot)
                    position.pointee += 1
                }
            }
            sortTiles(start: start, entries: entries, depth: projection.depth, tiles: tiles, threads: threads,
                      cancellation: cancellation)
            return TileLists(start: start, entries: entries, splats: projection.projected, tileCount: tiles)
        }
    }

    /// Sorts every tile's list by depth, a few neighbouring tiles per task (their lists are
    /// adjacent in `entries`), with one scratch buffer per task sized to its longest list.
    private static func sortTiles(start: AlignedBuffer<Int>, entries: AlignedBuffer<UInt32>, depth: AlignedBuffer<Float>,
                                  tiles: Int, threads: Int?, cancellation: CancellationToken?) {
        Parallel.forEachChunk(count: tiles, chunkSize: tilesPerSortTask, threads: threads,
                              cancellation: cancellation) { _, range in
            var longest = 0
            for t in range { longest = max(longest, start[t + 1] - start[t]) }
            guard longest > 1 else { return }
            let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: 2 * longest)
            defer { scratch.deallocate() }
            for t in range {
                TileDepthSort.sort(entries.base + start[t], count: start[t + 1] - start[t], depth: depth.base,
                                   scratch: scratch)
            }
        }
    }
}
