import SplatCore

/// Size ceilings for images this module reads, writes or composes. Checked before any pixel
/// buffer is allocated, so a hostile header or an absurd request fails with `too_large` instead
/// of exhausting memory.
public enum ImageLimits {
    /// 2^28 pixels (1 GiB as RGBA8): far above any render or contact sheet we make, far below
    /// what would take the machine down.
    public static let maxPixels = 268_435_456
    /// The WebP format stores each side in 14 bits.
    public static let maxWebPSide = 16383

    /// Checks `width × height` against `maxPixels` (and for overflow) and returns the byte count
    /// of an interleaved 8-bit buffer with `channels` channels.
    static func checkedByteCount(width: Int, height: Int, channels: Int, maxPixels: Int = ImageLimits.maxPixels,
                                 what: String, file: String? = nil) throws(SplatError) -> Int {
        guard width > 0, height > 0 else {
            throw SplatError(.invalidArgument, "\(what) is \(width)×\(height); both sides must be at least 1", file: file)
        }
        guard let pixels = CheckedSize.mul(width, height), pixels <= maxPixels,
              let bytes = CheckedSize.mul(pixels, channels) else {
            throw SplatError(.tooLarge, "\(what) is \(width)×\(height) pixels; the limit is \(maxPixels) pixels", file: file)
        }
        return bytes
    }
}
