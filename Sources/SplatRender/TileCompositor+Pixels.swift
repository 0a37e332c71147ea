import SplatCore

// Quantising a finished tile into the output image.
extension TileCompositor {
    /// floor(clamp(v, 0, 1)·255 + 0.5) per lane (`rendering.md` 10), as 32-bit lanes; NaN (only
    /// from absurd SH values overflowing) becomes 0 rather than garbage.
    ///
    /// Computed as floor(clamp(v·255 + 0.5, 0.5, 255.5)), the same value for every v (inside
    /// [0, 1] the arithmetic is identical; outside, both give 0 or 255), with the clamp in the
    /// exact select forms of MAXPS and MINPS, which also send NaN to the low bound: the NaN blend
    /// and clamp before it compiled to about 30 instructions of 128-bit shuffling per channel.
    @_transparent
    private static func quantiseLinear(_ value: SIMD8<Float>) -> SIMD8<UInt32> {
        let scaled = value * 255 + 0.5
        let low = SIMD8<Float>(repeating: 0.5), high = SIMD8<Float>(repeating: 255.5)
        let atLeast = low.replacing(with: scaled, where: scaled .> low)
        let level = high.replacing(with: atLeast, where: atLeast .< high).rounded(.down)
        // 1.5·2²³ + level keeps the integer level in the low mantissa bits.
        return unsafeBitCast(level + 12_582_912, to: SIMD8<UInt32>.self) & 0xFF
    }

    /// `quantiseLinear` of the value, sRGB-encoded first when `encodesSRGB`.
    @_transparent
    private static func quantise(_ value: SIMD8<Float>, _ encodesSRGB: Bool) -> SIMD8<UInt32> {
        encodesSRGB ? quantiseEncoded(value) : quantiseLinear(value)
    }

    /// `quantiseLinear` of the sRGB-encoded value (a linear-light scene); kept out of line, since
    /// only glTF scenes in linear light take it.
    @inline(never)
    private static func quantiseEncoded(_ value: SIMD8<Float>) -> SIMD8<UInt32> {
        var v = value
        for lane in 0..<8 { v[lane] = SplatColorSpace.srgbEncoded(v[lane]) }
        return quantiseLinear(v)
    }

    /// Eight straight-alpha RGBA pixels, each packed in a 32-bit lane as bytes R, G, B, A in
    /// memory order (little-endian): the accumulated colour is premultiplied by 1 − T, so it is
    /// divided by the coverage first. Coverage is not a colour: never transfer-encoded.
    @_transparent
    private static func straightAlpha(red: SIMD8<Float>, green: SIMD8<Float>, blue: SIMD8<Float>, coverage: SIMD8<Float>,
                                      encodesSRGB: Bool) -> SIMD8<UInt32> {
        let inv = SIMD8<Float>(repeating: 0).replacing(with: 1 / coverage, where: coverage .> 0)
        return quantise(red * inv, encodesSRGB) | quantise(green * inv, encodesSRGB) &<< 8
            | quantise(blue * inv, encodesSRGB) &<< 16 | quantiseLinear(coverage) &<< 24
    }

    /// Quantises a tile of 4 × 2 blocks (see `renderTile`): floor(clamp(v, 0, 1)·255 + 0.5) per
    /// channel (`rendering.md` 10), and returns the sum of 1 − T over its pixels.
    ///
    /// A full RGBA block is packed into eight 32-bit pixels and written as two 16-byte rows;
    /// storing pixels one lane at a time was 5–6 % of the biker 1024² frame.
    func writePixels(x0: Int, y0: Int, columns: Int, rows: Int, transmittance: UnsafePointer<SIMD8<Float>>,
                     red: UnsafePointer<SIMD8<Float>>, green: UnsafePointer<SIMD8<Float>>,
                     blue: UnsafePointer<SIMD8<Float>>, out: UnsafeMutablePointer<UInt8>, channels: Int) -> Double {
        typealias V = SIMD8<Float>
        let encodesSRGB = self.encodesSRGB
        let lane = SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7)
        let laneColumn = lane & 3, laneRow = lane &>> 2
        // At most 32 terms per lane, so a Float vector sum loses nothing that matters.
        var covered = V()
        #if _endian(little)
        if columns == 16 && rows == 16 && background == nil && !encodesSRGB {
            // Nearly every tile: whole blocks, straight alpha, display values. The general loop
            // below spent about 190 instructions a block on its bounds and overflow checks.
            let stride = view.width &* 4
            let topLeft = UnsafeMutableRawPointer(out + (y0 * view.width + x0) * 4)
            // Packed into a block-ordered copy first, then copied out row by row: splitting each
            // block into two 16-byte rows in place made the compiler do all of the quantising
            // in 128-bit halves.
            withUnsafeTemporaryAllocation(of: SIMD8<UInt32>.self, capacity: 32) { packed in
                let blocks = packed.baseAddress!
                for h in 0..<32 {
                    let tr = transmittance[h]
                    let coverage = 1 - tr
                    covered += coverage
                    blocks[h] = Self.straightAlpha(red: red[h], green: green[h], blue: blue[h], coverage: coverage,
                                                   encodesSRGB: false)
                }
                let source = UnsafeRawPointer(blocks)
                for row in 0..<16 {
                    // Row r is the low or high half of blocks 4·(r / 2) ..< 4·(r / 2) + 4.
                    let from = source + ((row &>> 1) &* 128 &+ (row & 1) &* 16)
                    let to = topLeft + row &* stride
                    for bc in 0..<4 {
                        to.storeBytes(of: from.load(fromByteOffset: bc &* 32, as: SIMD4<UInt32>.self),
                                      toByteOffset: bc &* 16, as: SIMD4<UInt32>.self)
                    }
                }
            }
            return Double(covered.sum())
        }
        #endif
        for blockRow in 0..<((rows + 1) / 2) {
            for blockColumn in 0..<((columns + 3) / 4) {
                let h = 4 * blockRow + blockColumn
                let count = min(4, columns - 4 * blockColumn), lines = min(2, rows - 2 * blockRow)
                let tr = transmittance[h]
                let coverage = 1 - tr
                let full = count == 4 && lines == 2
                covered += full ? coverage : V(repeating: 0).replacing(
                    with: coverage, where: (laneColumn .< Int32(count)) .& (laneRow .< Int32(lines)))
                let corner = out + ((y0 + 2 * blockRow) * view.width + x0 + 4 * blockColumn) * channels
                if let bg = background {
                    let qr = Self.quantise(red[h] + tr * bg.x, encodesSRGB)
                    let qg = Self.quantise(green[h] + tr * bg.y, encodesSRGB)
                    let qb = Self.quantise(blue[h] + tr * bg.z, encodesSRGB)
                    for line in 0..<lines {
                        var p = corner + line * view.width * 3
                        for c in 0..<count {
                            let l = 4 * line + c
                            p[0] = UInt8(truncatingIfNeeded: qr[l])
                            p[1] = UInt8(truncatingIfNeeded: qg[l])
                            p[2] = UInt8(truncatingIfNeeded: qb[l])
                            p += 3
                        }
                    }
                } else {
                    let pixels = Self.straightAlpha(red: red[h], green: green[h], blue: blue[h], coverage: coverage,
                                                    encodesSRGB: encodesSRGB)
                    #if _endian(little)
                    // Bytes R, G, B, A in memory order.
                    if full {
                        UnsafeMutableRawPointer(corner).storeBytes(of: pixels.lowHalf, as: SIMD4<UInt32>.self)
                        UnsafeMutableRawPointer(corner + view.width * 4).storeBytes(of: pixels.highHalf, as: SIMD4<UInt32>.self)
                        continue
                    }
                    #endif
                    for line in 0..<lines {
                        let p = UnsafeMutableRawPointer(corner + line * view.width * 4)
                        for c in 0..<count {
                            p.storeBytes(of: pixels[4 * line + c].littleEndian, toByteOffset: 4 * c, as: UInt32.self)
                        }
                    }
                }
            }
        }
        return Double(covered.sum())
    }
}
