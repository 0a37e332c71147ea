import CPrefetch
import SplatCore

/// Front-to-back blending of each 16×16 tile's sorted splats (`rendering.md` 8, 10, 13).
///
/// Per pixel: α = min(0.99, o·e^power); skip when power > 0 or α < 1/255; stop (without blending)
/// when T·(1 − α) < 1e−4; output S + T·bg, or straight-alpha RGBA. Work is SIMD over pixels: a
/// block of 4 × 2 pixels is one `SIMD8` (one AVX register) with lane masks for the skip and stop
/// rules. Cheap rejects before exp: tiles, rows and columns a splat cannot reach (the maximum of
/// its exponent over a row is dy²·(−½)(C − B²/A)), and vectors whose every lane is below
/// −ln(255·o) − 1e−3 — all with margins that cover float rounding, so the image is exactly what
/// evaluating every pixel would give (`ExactCullingTests`). Tiles are handed to workers most
/// expensive first; a tile stops reading splats once every pixel has stopped.
struct TileCompositor {
    let view: ViewProjection
    /// In the blending space: linear light when `encodesSRGB`.
    let background: SIMD3<Float>?
    /// The colours are linear light (a glTF `lin_rec709_display` scene, `formats-gltf.md` 12.4):
    /// blend as they are, then encode the composite with the sRGB transfer function before
    /// quantising. Off for every other scene, whose colours are already display values.
    var encodesSRGB = false
    /// Tests only: evaluate every pixel of every binned tile with no pre-tests, to show that the
    /// pre-tests change nothing.
    var exhaustive = false

    static let maxAlpha: Float = 0.99
    static let minAlpha: Float = 1.0 / 255.0
    static let minTransmittance: Float = 1e-4
    /// Exponents are raised to this before exp: e^−30·o is far below 1/255 (so no decision
    /// changes) but keeps α·T away from denormals in lanes that fail the test.
    static let exponentFloor: Float = -30
    /// Records copied ahead per tile (12 KiB of stack).
    static let batchSize = 256

    struct Output {
        var pixels: [UInt8]
        var coverage: Double
    }

    /// A cancelled token stops it between tiles; the renderer then throws.
    func composite(lists: TileBinner.TileLists, threads: Int?, cancellation: CancellationToken? = nil) -> Output {
        let tiles = lists.tileCount
        let channels = background == nil ? 4 : 3
        var pixels = [UInt8](repeating: 0, count: view.width * view.height * channels)
        let coverage = AlignedBuffer<Double>(count: tiles, zeroed: true)
        // Most expensive tiles first, so the last tiles to finish are short ones.
        var order = Array(0..<tiles)
        order.sort { a, b in
            let ca = lists.start[a + 1] - lists.start[a], cb = lists.start[b + 1] - lists.start[b]
            return ca != cb ? ca > cb : a < b
        }
        pixels.withUnsafeMutableBufferPointer { out in
            let outBase = out.baseAddress!
            order.withUnsafeBufferPointer { order in
                _ = Parallel.forEach(iterations: tiles, threads: threads, cancellation: cancellation) { k in
                    let t = order[k]
                    coverage[t] = renderTile(t, lists: lists, out: outBase, channels: channels)
                }
            }
        }
        var sum = 0.0
        for t in 0..<tiles { sum += coverage[t] }
        return Output(pixels: pixels, coverage: sum / Double(view.width * view.height))
    }

    /// Blends tile `t` and writes its pixels; returns the sum of 1 − T over its pixels.
    ///
    /// The tile is 32 blocks of 4 columns × 2 rows, one `SIMD8` each (block h = 4·blockRow +
    /// blockColumn; lane l is column l mod 4, row l / 4 of its block). Splat-outer order: each
    /// splat visits only the blocks it can reach (its record's row and column reaches), updating
    /// T and S of that block, held in a 6 KiB stack block. For each splat, a first pass computes
    /// the exponent of every reachable block and the cheap pre-test into a bit set; the second
    /// pass runs exp and blending for the set bits only. Blocks whose pixels have all stopped never
    /// pass the pre-test. Before the split, one branch per vector on the pre-test mispredicted
    /// often (it fails about 40 % of the live visits, in no regular pattern): the split made
    /// compositing biker 1024² about 7 % and the stress frame 2–3 % faster, with identical pixels.
    ///
    /// Why square-ish blocks rather than half rows of 8: most splats are a few pixels across, and
    /// a vector only pays when a lane of it passes. Counted on biker 1024², a passing vector of
    /// 8 × 1 pixels held 3.7 passing lanes on average; the same pixels need 22 % fewer 4 × 2
    /// vectors (2.24 M against 2.89 M a frame; the stress frame 3.06 M against 3.91 M). The
    /// per-pixel arithmetic is the same, so the image is too.
    private func renderTile(_ t: Int, lists: TileBinner.TileLists, out: UnsafeMutablePointer<UInt8>, channels: Int) -> Double {
        typealias V = SIMD8<Float>
        typealias Mask = SIMDMask<SIMD8<Int32>>
        let tileX = t % view.tilesX, tileY = t / view.tilesX
        let x0 = tileX * 16, y0 = tileY * 16
        let columns = min(16, view.width - x0), rows = min(16, view.height - y0)
        let first = lists.start[t], end = lists.start[t + 1]
        let entries = lists.entries.base
        let records = UnsafePointer(lists.splats.base)
        let lane = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let laneColumn = lane & 3, laneRow = lane &>> 2
        // Pixel centres of block column 0 and block row 0; every coordinate is a small integer
        // plus ½, so adding a block's offset later is exact.
        let pixelX = SIMD8<Float>(laneColumn) + (Float(x0) + 0.5)
        let pixelY = SIMD8<Float>(laneRow) + (Float(y0) + 0.5)

        return withUnsafeTemporaryAllocation(of: V.self, capacity: 258) { state in
              withUnsafeTemporaryAllocation(of: ProjectedSplat.self, capacity: Self.batchSize) { batchBuffer in
                let batch = batchBuffer.baseAddress!
                let st = state.baseAddress!
                let transmittance = st, red = st + 32, green = st + 64, blue = st + 96
                // 0 for a live pixel, +∞ once it has stopped (or lies outside the image):
                // subtracting it from the exponent fails the cutoff test.
                let barrier = st + 128
                // One splat's exponents per block, between the two passes.
                let powers = st + 160
                // Pixel centres of each block column and row, and one splat's dx and −½A·dx² per
                // block column and −B·dy and −½C·dy² per block row; each with spare slots past
                // the last (3 columns, 7 rows), which the unconditional terms may fill.
                let columnX = st + 192, rowY = st + 199
                for bc in 0..<7 { columnX[bc] = pixelX + Float(4 * bc) }
                for br in 0..<15 { rowY[br] = pixelY + Float(2 * br) }
                let columnDX = st + 214, columnQuad = st + 221, rowK1 = st + 228, rowK0 = st + 243
                // Bit h: block h still has a live pixel. Splats visit only these.
                var liveBlocks: UInt32 = 0
                for h in 0..<32 {
                    transmittance[h] = V(repeating: 1)
                    red[h] = V(); green[h] = V(); blue[h] = V()
                    barrier[h] = V()
                }
                if columns == 16 && rows == 16 {
                    liveBlocks = .max
                } else {
                    // Only tiles on the image's right and bottom edges; the integer lane compares
                    // compile to a lane-by-lane loop, which cost a fifth of compositing when every
                    // tile ran it.
                    for h in 0..<32 {
                        let valid: Mask = (laneColumn &+ Int32(4 * (h & 3)) .< Int32(columns)) .& (laneRow &+ Int32(2 * (h >> 2)) .< Int32(rows))
                        barrier[h] = V(repeating: .infinity).replacing(with: 0, where: valid)
                        if valid.anyLane { liveBlocks |= 1 &<< UInt32(h) }
                    }
                }
                let tileLeft = Float(x0) + 0.5, tileTop = Float(y0) + 0.5
                // The reach bounds are clamped to the tile in one go: first rows and columns at
                // least 0, last ones at most 15 (16 and −1 keep an empty range empty). In an edge
                // tile, rows and columns past the image lie in blocks that are not live, or in
                // lanes whose barrier is +∞. The bounds are constants on purpose: with the tile's
                // own last row and column, the compiler split the clamp into mispredicting branches.
                let boundsLow = SIMD4<Float>(0, -1, 0, -1), boundsHigh = SIMD4<Float>(16, 15, 16, 15)

                var cursor = first
                splats: while cursor < end {
                  // Copy the next batch of records first: the loads are independent, so their
                  // cache misses overlap, where one dependent miss per splat would stall.
                  let batchCount = min(Self.batchSize, end - cursor)
                  for k in 0..<batchCount { batch[k] = records[Int(entries[cursor + k])] }
                  cursor += batchCount
                  // Blending the batch leaves the memory system idle: have it fetch the next
                  // batch's records meanwhile, one per splat blended, so that copy finds them in
                  // cache. On the stress frame a fifth of compositing was that copy waiting.
                  let ahead = min(Self.batchSize, end - cursor)
                  for k in 0..<batchCount {
                    if k < ahead { splat_prefetch(records + Int(entries[cursor + k])) }
                    let s = batch[k]
                    // The first and last row and column within reach, as tile offsets: ⌈lo⌉ is
                    // computed as −⌊−lo⌋ so one rounding serves all four.
                    let reach = SIMD4(s.rowReach, s.rowReach, s.columnReach, s.columnReach)
                    let centre = SIMD4(s.v - tileTop, s.v - tileTop, s.u - tileLeft, s.u - tileLeft)
                    let toward = SIMD4<Float>(-1, 1, -1, 1)
                    let bounds = Self.tileOffsets(((centre.addingProduct(toward, reach)) * toward).rounded(.down) * toward,
                                                  low: boundsLow, high: boundsHigh)
                    if !exhaustive && any(SIMD2(bounds[0], bounds[2]) .> SIMD2(bounds[1], bounds[3])) { continue }
                    var rowLo = Int(bounds[0]), rowHi = Int(bounds[1]), columnLo = Int(bounds[2]), columnHi = Int(bounds[3])
                    if exhaustive { (rowLo, rowHi, columnLo, columnHi) = (0, rows - 1, 0, columns - 1) }
                    // The reachable blocks that still have a live pixel: a dead block would only
                    // fail the pre-test (a third of the stress frame's visits).
                    let blockRowSpan = UInt32(truncatingIfNeeded: (UInt64(1) &<< UInt64(4 &* (rowHi &>> 1) &+ 4))
                                                  &- (UInt64(1) &<< UInt64(4 &* (rowLo &>> 1))))
                    let columnLoBlock = columnLo &>> 2, columnHiBlock = columnHi &>> 2
                    let columnNibble = UInt32(truncatingIfNeeded: (2 &<< columnHiBlock) &- (1 &<< columnLoBlock))
                    var live = blockRowSpan & (columnNibble &* 0x1111_1111) & liveBlocks
                    if live == 0 { continue }
                    let a = s.conicA, b = s.conicB, c = s.conicC
                    let opacity = s.opacity, cutoff = exhaustive ? -Float.greatestFiniteMagnitude : s.powerThreshold
                    let colourR = s.red, colourG = s.green, colourB = s.blue
                    // power = −½(A·dx² + C·dy²) − B·dx·dy = (−½A·dx)·dx + (−B·dy)·dx + (−½C·dy²):
                    // the dx terms per block column and the dy terms per block row, once per
                    // splat. The first two block columns and rows of the reach always; the rest,
                    // all at once, only when the reach is wider or taller than that. Loops over just
                    // the reachable ones mispredicted their exits about once a splat each
                    // (cachegrind's branch simulation: a fifth of the compositor's mispredictions);
                    // computing all four columns and eight rows for every splat cost the stress
                    // frame's one-block splats more than it saved. Spare slots past the last
                    // column and row take the terms that fall outside the tile.
                    let rowLoBlock = rowLo &>> 1, rowHiBlock = rowHi &>> 1
                    @inline(__always) func columnTerms(_ bc: Int) {
                        let dx = s.u - columnX[bc]
                        columnDX[bc] = dx
                        columnQuad[bc] = (-0.5 * a * dx) * dx
                    }
                    @inline(__always) func rowTerms(_ br: Int) {
                        let dy = s.v - rowY[br]
                        rowK1[br] = -b * dy
                        rowK0[br] = -0.5 * c * dy * dy
                    }
                    columnTerms(columnLoBlock)
                    columnTerms(columnLoBlock &+ 1)
                    if columnHiBlock > columnLoBlock &+ 1 {
                        columnTerms(columnLoBlock &+ 2)
                        columnTerms(columnLoBlock &+ 3)
                    }
                    rowTerms(rowLoBlock)
                    rowTerms(rowLoBlock &+ 1)
                    if rowHiBlock > rowLoBlock &+ 1 {
                        for k in 2..<8 { rowTerms(rowLoBlock &+ k) }
                    }
                    // The two passes (see above); bit h of `candidates` is block h.
                    var candidates: UInt32 = 0
                    while live != 0 {
                        let h = live.trailingZeroBitCount
                        live &= live &- 1
                        let bc = h & 3, br = h &>> 2
                        // A dead block's barrier is +∞ in every lane, so it never passes.
                        let power = columnQuad[bc].addingProduct(columnDX[bc], rowK1[br]) + rowK0[br] - barrier[h]
                        powers[h] = power
                        let pass: UInt32 = (power .>= cutoff).anyLane ? 1 : 0
                        candidates |= pass &<< UInt32(truncatingIfNeeded: h)
                    }
                    while candidates != 0 {
                        let h = candidates.trailingZeroBitCount
                        candidates &= candidates &- 1
                        // −∞ in stopped lanes (the barrier), whose α is then below 1/255. A live
                        // lane under the cutoff fails the α test too (that is what the cutoff
                        // promises), so the pre-test need not be repeated lane by lane here.
                        let power = powers[h]
                        let alpha = (opacity * FastExp.exp8(power, floor: Self.exponentFloor)).atMost(Self.maxAlpha)
                        let passes = (power .<= 0) .& (alpha .>= Self.minAlpha)
                        let tr = transmittance[h]
                        // Lanes that fail multiply T by exactly 1 and add exactly 0, so the
                        // common case (no lane stops) stores without waiting for the stop
                        // test: the next splat's load of T and S depends on one multiply,
                        // not on a compare and two blends (the block's loop-carried chain).
                        // The two branches store separately on purpose: one shared store
                        // after a masked weight measured 0.5–3 % slower (biker 1024², stress).
                        let next = tr * V(repeating: 1).replacing(with: 1 - alpha, where: passes)
                        let weight = V(repeating: 0).replacing(with: alpha, where: passes) * tr
                        let stop = passes .& (next .< Self.minTransmittance)
                        if !stop.anyLane {
                            red[h] = red[h].addingProduct(weight, colourR)
                            green[h] = green[h].addingProduct(weight, colourG)
                            blue[h] = blue[h].addingProduct(weight, colourB)
                            transmittance[h] = next
                        } else {
                            let blend = passes .& .!stop
                            let kept = V(repeating: 0).replacing(with: weight, where: blend)
                            red[h] = red[h].addingProduct(kept, colourR)
                            green[h] = green[h].addingProduct(kept, colourG)
                            blue[h] = blue[h].addingProduct(kept, colourB)
                            transmittance[h] = tr.replacing(with: next, where: blend)
                            let stopped = barrier[h].replacing(with: .infinity, where: stop)
                            barrier[h] = stopped
                            if !(stopped .== 0).anyLane {
                                liveBlocks &= ~(1 &<< UInt32(truncatingIfNeeded: h))
                                if liveBlocks == 0 { break splats }
                            }
                        }
                    }
                  }
                }
                return writePixels(x0: x0, y0: y0, columns: columns, rows: rows, transmittance: transmittance,
                                   red: red, green: green, blue: blue, out: out, channels: channels)
              }
        }
    }

    /// Whole row or column offsets as integers, clamped lane by lane to [`low`, `high`] (NaN
    /// gives `low`), four at a time: 1.5·2²³ + x puts the integer x in the low mantissa bits.
    @inline(__always)
    private static func tileOffsets(_ x: SIMD4<Float>, low: SIMD4<Float>, high: SIMD4<Float>) -> SIMD4<Int32> {
        // Written as the exact select patterns of MAXPS (a > b ? a : b) and MINPS (a < b ? a : b):
        // the earlier `x >= low` form was not one, so the compiler split it into a branch per
        // lane, two of which mispredicted about 30 % of the time (cachegrind).
        let atLeastLow = low.replacing(with: x, where: x .> low)
        let clamped = high.replacing(with: atLeastLow, where: atLeastLow .< high)
        return unsafeBitCast(clamped + 12_582_912, to: SIMD4<Int32>.self) &- 0x4B40_0000
    }
}
