import SplatCore

/// Flattens straight-alpha RGBA onto an opaque matte colour, for formats without alpha (JPEG):
/// out = c·a + matte·(1 − a) with a = alpha / 255, in the same display-referred values the
/// renderer writes (`rendering.md` section 10), rounded to the nearest level.
enum AlphaMatte {
    /// The matte JPEG uses when the caller gives none: white, the usual page colour.
    static let white = SIMD3<Float>(1, 1, 1)

    /// Checks a matte colour: three finite channels in 0 … 1.
    static func validate(_ matte: SIMD3<Float>) throws(SplatError) {
        for k in 0..<3 where !(matte[k].isFinite && (0...1).contains(matte[k])) {
            throw SplatError(.invalidArgument, "matte colour \(matte) has a channel outside 0…1", field: "matte")
        }
    }

    /// Writes `count` pixels of `source` (RGBA) as RGB to `out`.
    static func composite(_ source: UnsafePointer<UInt8>, count: Int, matte: SIMD3<Float>, into out: UnsafeMutablePointer<UInt8>) {
        // In level units: (c·α + m·(255 − α)) / 255. With an integer-level matte the exact value
        // is never halfway between levels, so rounding in Float is exact as well.
        let m = matte * 255
        for i in 0..<count {
            let p = source + 4 * i
            let alpha = Float(p[3])
            let colour = SIMD3<Float>(Float(p[0]), Float(p[1]), Float(p[2]))
            let value = ((colour * alpha + m * (255 - alpha)) / 255 + 0.5).rounded(.down)
            let q = out + 3 * i
            q[0] = UInt8(value[0])
            q[1] = UInt8(value[1])
            q[2] = UInt8(value[2])
        }
    }
}

extension ImageBuffer {
    /// This image as opaque RGB over `matte` (channels 0 … 1): each RGBA pixel becomes
    /// round(c·a + matte·(1 − a)) with straight alpha a = alpha / 255. RGB images come back as they are.
    public func flattened(onto matte: SIMD3<Float>) throws(SplatError) -> ImageBuffer {
        try AlphaMatte.validate(matte)
        guard hasAlpha else { return self }
        let count = width * height
        var out = [UInt8](repeating: 0, count: count * 3)
        _ = pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                Parallel.forEachChunk(count: count, chunkSize: 1 << 16) { _, range in
                    AlphaMatte.composite(src.baseAddress! + 4 * range.lowerBound, count: range.count, matte: matte,
                                         into: dst.baseAddress! + 3 * range.lowerBound)
                }
            }
        }
        return ImageBuffer(width: width, height: height, channels: 3, pixels: out)
    }
}
