import SplatCore

extension ImageBuffer {
    /// This image shrunk by an integer factor `k` with a box filter.
    ///
    /// The result is ⌈width/k⌉ × ⌈height/k⌉. Output pixel (i, j) averages the source pixels of the
    /// block [k·i, k·i+k) × [k·j, k·j+k) that lie inside the image (n of them: k² except in a last
    /// partial column or row). Each value is rounded as floor(sum/n + 0.5), computed exactly in integers.
    /// RGB: every channel is the plain average. RGBA: alpha is the plain average; colour is the
    /// alpha-weighted average Σ(c·a)/Σa rounded the same way (averaging premultiplied colour and
    /// dividing by the average alpha), so transparent pixels do not bleed their colour in; a block
    /// whose alpha is all zero gets colour 0. `k == 1` returns the image unchanged.
    public func downscaled(by k: Int) throws(SplatError) -> ImageBuffer {
        guard k >= 1 else {
            throw SplatError(.invalidArgument, "downscale factor \(k) must be at least 1", field: "downscale")
        }
        if k == 1 { return self }
        guard width > 0, height > 0 else { return ImageBuffer(width: 0, height: 0, channels: channels) }
        let outWidth = (width + k - 1) / k, outHeight = (height + k - 1) / k
        let c = channels
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * c)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for oy in 0..<outHeight {
                    let y0 = oy * k, y1 = Swift.min(height, y0 + k)
                    for ox in 0..<outWidth {
                        let x0 = ox * k, x1 = Swift.min(width, x0 + k)
                        let n = (y1 - y0) * (x1 - x0)
                        // Worst case 255·255·k²: fits Int for any k an image can have.
                        var sums: (Int, Int, Int, Int) = (0, 0, 0, 0)
                        for y in y0..<y1 {
                            var p = (y * width + x0) * c
                            for _ in x0..<x1 {
                                if c == 4 {
                                    let a = Int(src[p + 3])
                                    sums.0 += Int(src[p]) * a
                                    sums.1 += Int(src[p + 1]) * a
                                    sums.2 += Int(src[p + 2]) * a
                                    sums.3 += a
                                } else {
                                    sums.0 += Int(src[p])
                                    sums.1 += Int(src[p + 1])
                                    sums.2 += Int(src[p + 2])
                                }
                                p += c
                            }
                        }
                        let q = (oy * outWidth + ox) * c
                        if c == 4 {
                            let alphaSum = sums.3
                            dst[q + 3] = UInt8(Self.roundedQuotient(alphaSum, n))
                            if alphaSum > 0 {
                                dst[q] = UInt8(Self.roundedQuotient(sums.0, alphaSum))
                                dst[q + 1] = UInt8(Self.roundedQuotient(sums.1, alphaSum))
                                dst[q + 2] = UInt8(Self.roundedQuotient(sums.2, alphaSum))
                            }
                        } else {
                            dst[q] = UInt8(Self.roundedQuotient(sums.0, n))
                            dst[q + 1] = UInt8(Self.roundedQuotient(sums.1, n))
                            dst[q + 2] = UInt8(Self.roundedQuotient(sums.2, n))
                        }
                    }
                }
            }
        }
        return ImageBuffer(width: outWidth, height: outHeight, channels: c, pixels: out)
    }

    /// floor(sum/n + 0.5) for sum ≥ 0, n > 0, without floating point.
    @inline(__always)
    static func roundedQuotient(_ sum: Int, _ n: Int) -> Int { (2 * sum + n) / (2 * n) }
}
