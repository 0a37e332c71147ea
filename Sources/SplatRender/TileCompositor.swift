import SplatCore

/// Front-to-back blending of each 16×16 tile's sorted splats (`rendering.md` 8, 10, 13).
///
/// Per pixel: α = min(0.99, o·e^power); skip when power > 0 or α < 1/255; stop (without blending)
/// when T·(1 − α) < 1e−4; output S + T·bg, or straight-alpha RGBA. A tile row of 16 pixels is
/// one `SIMD16` with lane masks for the skip and stop rules; T and S stay in registers while the
/// row walks the splat list. Cheap rejects before exp: whole tiles and whole rows a splat cannot
/// reach (the maximum of the exponent over a row is dy²·(−½)(C − B²/A)), and vectors whose every
/// lane is below −ln(255·o) − 1e−3 — all with margins that cover float rounding, so the image is
/// exactly what evaluating every pixel would give. Tiles are handed to workers most expensive
/// first; a tile stops reading splats once every pixel has stopped.
struct TileCompositor {
    let view: ViewProjection
    let background: SIMD3<Float>?

    static let maxAlpha: Float = 0.99
    static let minAlpha: Float = 1.0 / 255.0
    static let minTransmittance: Float = 1e-4
    /// Splats gathered per batch (stack memory: 12 floats each).
    static let batchCapacity = 256

    struct Output {
        var pixels: [UInt8]
        var coverage: Double
    }

    func composite(lists: TileBinner.TileLists, projected: UnsafePointer<ProjectedSplat>, threads: Int?) -> Output {
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
                Parallel.forEach(iterations: tiles, threads: threads) { k in
                    let t = order[k]
                    coverage[t] = renderTile(t, lists: lists, projected: projected, out: outBase, channels: channels)
                }
            }
        }
        var sum = 0.0
        for t in 0..<tiles { sum += coverage[t] }
        return Output(pixels: pixels, coverage: sum / Double(view.width * view.height))
    }

    /// Blends tile `t` and writes its pixels; returns the sum of 1 − T over its pixels.
    private func renderTile(_ t: Int, lists: TileBinner.TileLists, projected: UnsafePointer<ProjectedSplat>,
                            out: UnsafeMutablePointer<UInt8>, channels: Int) -> Double {
        typealias V = SIMD16<Float>
        typealias Mask = SIMDMask<SIMD16<Int32>>
        let tileX = t % view.tilesX, tileY = t / view.tilesX
        let x0 = tileX * 16, y0 = tileY * 16
        let columns = min(16, view.width - x0), rows = min(16, view.height - y0)
        let first = lists.start[t], end = lists.start[t + 1]
        let entries = lists.entries.base
        let laneIndex = V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let pixelX = laneIndex + (Float(x0) + 0.5)
        let columnMask: Mask = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) .< Int32(columns)

        return withUnsafeTemporaryAllocation(of: V.self, capacity: 4 * 16) { state in
            withUnsafeTemporaryAllocation(of: Mask.self, capacity: 16) { active in
                withUnsafeTemporaryAllocation(of: Float.self, capacity: 12 * Self.batchCapacity) { batch in
                    let st = state.baseAddress!, act = active.baseAddress!
                    let transmittance = st, red = st + 16, green = st + 32, blue = st + 48
                    for r in 0..<16 {
                        transmittance[r] = V(repeating: 1)
                        red[r] = V(); green[r] = V(); blue[r] = V()
                        act[r] = r < rows ? columnMask : Mask(repeating: false)
                    }
                    var liveRows = rows
                    let cap = Self.batchCapacity
                    let b = batch.baseAddress!
                    let bu = b, bv = b + cap, bA = b + 2 * cap, bB = b + 3 * cap, bC = b + 4 * cap
                    let bo = b + 5 * cap, bR = b + 6 * cap, bG = b + 7 * cap, bBl = b + 8 * cap
                    let bThreshold = b + 9 * cap, bRowCoef = b + 10 * cap, bRowThreshold = b + 11 * cap
                    let tileLeft = Float(x0) + 0.5, tileRight = Float(x0) + 15.5
                    let tileTop = Float(y0) + 0.5, tileBottom = Float(y0) + 15.5

                    var cursor = first
                    while cursor < end && liveRows > 0 {
                        // Gather the next batch, dropping splats that cannot reach this tile.
                        var n = 0
                        while cursor < end && n < cap {
                            let s = projected[Int(entries[cursor])]
                            cursor += 1
                            let a = s.conicA, bq = s.conicB, c = s.conicC
                            let dxNear = s.u - tileRight, dxFar = s.u - tileLeft
                            let dyNear = s.v - tileBottom, dyFar = s.v - tileTop
                            let dxMax = max(abs(dxNear), abs(dxFar)), dyMax = max(abs(dyNear), abs(dyFar))
                            // |dx| over the tile's pixel centres; shrunk by the one rounding of u − x.
                            let dxMin = (dxNear <= 0 && dxFar >= 0) ? 0 : min(abs(dxNear), abs(dxFar)) * (1 - 1e-6)
                            let dyMin = (dyNear <= 0 && dyFar >= 0) ? 0 : min(abs(dyNear), abs(dyFar)) * (1 - 1e-6)
                            // Float error of the exponent grows with its terms' size (cancellation).
                            let terms = a * dxMax * dxMax + c * dyMax * dyMax + 2 * abs(bq) * dxMax * dyMax
                            let threshold = s.powerThreshold - 0.01 - 2e-6 * terms
                            let rowCoef = -0.5 * (c - bq * bq / a)
                            let columnCoef = -0.5 * (a - bq * bq / c)
                            if dyMin * dyMin * rowCoef < threshold || dxMin * dxMin * columnCoef < threshold { continue }
                            bu[n] = s.u; bv[n] = s.v
                            bA[n] = a; bB[n] = bq; bC[n] = c
                            bo[n] = s.opacity; bR[n] = s.red; bG[n] = s.green; bBl[n] = s.blue
                            bThreshold[n] = s.powerThreshold
                            bRowCoef[n] = rowCoef; bRowThreshold[n] = threshold
                            n += 1
                        }
                        if n == 0 { continue }
                        for r in 0..<rows where any(act[r]) {
                            var tr = transmittance[r], sr = red[r], sg = green[r], sb = blue[r]
                            var live = act[r]
                            let py = Float(y0 + r) + 0.5
                            for s in 0..<n {
                                let dy = bv[s] - py
                                if dy * dy * bRowCoef[s] < bRowThreshold[s] { continue }
                                let dx = bu[s] - pixelX
                                let cdy2 = bC[s] * dy * dy, bdy = bB[s] * dy
                                let power = -0.5 * (bA[s] * dx * dx + cdy2) - bdy * dx
                                let candidate = live .& (power .>= bThreshold[s])
                                if !any(candidate) { continue }
                                let alpha = (bo[s] * FastExp.exp(power)).clamped(lowerBound: V(repeating: 0),
                                                                                 upperBound: V(repeating: Self.maxAlpha))
                                let passes = candidate .& (power .<= 0) .& (alpha .>= Self.minAlpha)
                                let next = tr * (1 - alpha)
                                let stop = passes .& (next .< Self.minTransmittance)
                                let blend = passes .& .!stop
                                let weight = V(repeating: 0).replacing(with: alpha * tr, where: blend)
                                sr += bR[s] * weight
                                sg += bG[s] * weight
                                sb += bBl[s] * weight
                                tr.replace(with: next, where: blend)
                                if any(stop) {
                                    live = live .& .!stop
                                    if !any(live) { break }
                                }
                            }
                            transmittance[r] = tr; red[r] = sr; green[r] = sg; blue[r] = sb
                            act[r] = live
                            if !any(live) { liveRows -= 1 }
                        }
                    }
                    return writePixels(x0: x0, y0: y0, columns: columns, rows: rows, transmittance: transmittance,
                                       red: red, green: green, blue: blue, out: out, channels: channels)
                }
            }
        }
    }

    /// Quantises a tile: floor(clamp(v, 0, 1)·255 + 0.5) per channel (`rendering.md` 10).
    private func writePixels(x0: Int, y0: Int, columns: Int, rows: Int, transmittance: UnsafePointer<SIMD16<Float>>,
                             red: UnsafePointer<SIMD16<Float>>, green: UnsafePointer<SIMD16<Float>>,
                             blue: UnsafePointer<SIMD16<Float>>, out: UnsafeMutablePointer<UInt8>, channels: Int) -> Double {
        typealias V = SIMD16<Float>
        @inline(__always) func quantise(_ value: V) -> V {
            // A NaN (only from absurd SH values overflowing) becomes 0 rather than trapping below.
            let v = V(repeating: 0).replacing(with: value, where: value .== value)
            return (v.clamped(lowerBound: V(repeating: 0), upperBound: V(repeating: 1)) * 255 + 0.5).rounded(.down)
        }
        var covered = 0.0
        for r in 0..<rows {
            let tr = transmittance[r]
            let coverage = 1 - tr
            var qr: V, qg: V, qb: V
            var qa = V()
            if let bg = background {
                qr = quantise(red[r] + tr * bg.x)
                qg = quantise(green[r] + tr * bg.y)
                qb = quantise(blue[r] + tr * bg.z)
            } else {
                // Straight alpha: the accumulated colour is premultiplied by 1 − T.
                let inv = V(repeating: 0).replacing(with: 1 / coverage, where: coverage .> 0)
                qr = quantise(red[r] * inv)
                qg = quantise(green[r] * inv)
                qb = quantise(blue[r] * inv)
                qa = quantise(coverage)
            }
            var p = out + ((y0 + r) * view.width + x0) * channels
            for c in 0..<columns {
                covered += Double(coverage[c])
                p[0] = UInt8(qr[c]); p[1] = UInt8(qg[c]); p[2] = UInt8(qb[c])
                if channels == 4 { p[3] = UInt8(qa[c]) }
                p += channels
            }
        }
        return covered
    }
}
