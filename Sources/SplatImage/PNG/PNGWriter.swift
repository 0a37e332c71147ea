import CPNG
import SplatCore

/// Encodes 8-bit RGB and RGBA images as PNG: rows filtered with libpng's per-row heuristic
/// (`PNGRowFilter`), compressed by libdeflate in bands on all cores (`PNGImageData`), and an
/// sRGB chunk, which matches `rendering.md` section 10: the values are display-referred and
/// written as they are. The pixels decode bit-exactly with any PNG reader; the compressed bytes
/// depend on the level, never on the thread count.
public enum PNGWriter {
    /// The libdeflate level for thumbnails and renders: on seven corpus renders it comes within
    /// 1–6 % of libpng's default size (zlib level 6); level 6 gains 1–5 % for 1.3–2.4× the time,
    /// levels 1–2 lose up to 11 % against libpng (`splat-bench png-levels`, Documentation/images.md).
    public static let defaultCompressionLevel = 4
    /// The level of `fast: true`: up to 10 % larger than the default, for intermediate files.
    public static let fastCompressionLevel = 1
    /// libdeflate's range: 0 stores the data uncompressed, 12 is its slowest and smallest.
    public static let compressionLevels = 0...12

    /// The PNG bytes of `image`.
    ///
    /// - Parameters:
    ///   - fast: use `fastCompressionLevel` (ignored when `compressionLevel` is given).
    ///   - compressionLevel: libdeflate level in `compressionLevels`; nil = `defaultCompressionLevel`.
    ///   - threads: cores to use; nil = all. The output is the same for any value.
    ///   - cancellation: checked before each band of rows (a few milliseconds of work); once it
    ///     fires the encoder stops and throws its `timeout`, `interrupted` or `cancelled` error.
    public static func encode(_ image: ImageBuffer, fast: Bool = false, compressionLevel: Int? = nil, threads: Int? = nil,
                              cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        try encode(image, level: compressionLevel ?? (fast ? fastCompressionLevel : defaultCompressionLevel), threads: threads,
                   bandTargetBytes: PNGImageData.bandTargetBytes, cancellation: cancellation)
    }

    /// `encode` with the band size open, so tests can make many bands from small images.
    static func encode(_ image: ImageBuffer, level: Int, threads: Int?, bandTargetBytes: Int,
                       cancellation: CancellationToken) throws(SplatError) -> [UInt8] {
        try checkSize(image)
        guard compressionLevels.contains(level) else {
            throw SplatError(.invalidArgument, "PNG compression level \(level) is outside \(compressionLevels)", field: "compressionLevel")
        }
        if let threads, threads < 1 {
            throw SplatError(.invalidArgument, "threads \(threads) must be at least 1", field: "threads")
        }
        let data = try PNGImageData(image: image, level: level, threads: threads, bandTargetBytes: bandTargetBytes,
                                    cancellation: cancellation)

        // IHDR, sRGB, one IDAT for the zlib header, one per band, one for the Adler-32, IEND.
        let chunks = 4 + data.bands.count + 2
        var png = PNGChunkWriter(capacity: PNGChunkWriter.signature.count + 13 + 1 + data.byteCount + 12 * chunks)
        png.appendHeader(width: image.width, height: image.height, hasAlpha: image.hasAlpha)
        png.appendSRGB()
        png.append(type: "IDAT", data: data.header)
        for band in data.bands {
            // Copying is quick next to compressing, but a 1 GiB image has thousands of bands.
            try cancellation.check("while encoding the PNG")
            band.deflate.withUnsafeBytes { png.append(type: "IDAT", data: $0, crc: band.crc) }
        }
        png.append(type: "IDAT", data: data.trailer)
        png.appendEnd()
        return png.bytes
    }

    /// Encodes `image` and writes it to `path` atomically (temporary file + rename): a reader never
    /// sees a partial PNG and an existing file survives a failed write. "-" is not special here.
    public static func write(_ image: ImageBuffer, to path: String, fast: Bool = false, compressionLevel: Int? = nil,
                             threads: Int? = nil, cancellation: CancellationToken = .none) throws(SplatError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(image, fast: fast, compressionLevel: compressionLevel, threads: threads, cancellation: cancellation)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }

    /// Checks the size is within the pixel budget and one our reader (libpng) accepts back.
    static func checkSize(_ image: ImageBuffer) throws(SplatError) {
        _ = try ImageLimits.checkedByteCount(width: image.width, height: image.height, channels: image.channels,
                                             what: "PNG image")
        // libpng's default user limit on either side.
        guard image.width <= Int(PNG_USER_WIDTH_MAX), image.height <= Int(PNG_USER_HEIGHT_MAX) else {
            throw SplatError(.tooLarge, "PNG image is \(image.width)×\(image.height); libpng accepts at most \(PNG_USER_WIDTH_MAX) pixels per side")
        }
        // `pixels` is mutable, so the buffer may no longer match the size it was made with.
        guard image.pixels.count == image.width * image.height * image.channels else {
            throw SplatError(.invalidArgument, "pixel buffer holds \(image.pixels.count) bytes, expected \(image.width * image.height * image.channels)")
        }
    }
}
