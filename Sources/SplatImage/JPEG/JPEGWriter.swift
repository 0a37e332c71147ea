import CTurboJPEG
import SplatCore

/// Encodes images as baseline JPEG through libjpeg-turbo's TurboJPEG API.
///
/// JPEG has no alpha: RGBA is composited onto a matte colour first (`ImageBuffer.flattened(onto:)`
/// defines the arithmetic; white unless the caller says otherwise). TurboJPEG compresses a whole
/// image in one uninterruptible call, so the image is encoded in strips of whole MCU rows — on
/// all cores, with a cancellation check before each — and the strips are joined with restart
/// markers (`JPEGRestartJoiner`) into one JPEG that decodes to the same pixels as a single encode.
public enum JPEGWriter {
    /// How colour is sampled. 4:2:0 halves the chroma resolution both ways, as cameras do;
    /// 4:4:4 keeps it, which splat edges in saturated colours show.
    public enum ChromaSubsampling: Sendable, Equatable {
        /// 4:4:4 at quality 90 and above, 4:2:0 below (smaller files where quality is already traded).
        case automatic
        case full444
        case half420
    }

    public static let defaultQuality = 90
    public static let qualities = 1...100
    /// The matte RGBA images are composited onto when the caller gives none.
    public static let defaultMatte = AlphaMatte.white

    /// Pixels per strip: a strip takes about a millisecond, so a 512² thumbnail has four strips
    /// for two cores, and a cancellation is seen within milliseconds even for a 1 GiB image.
    static let stripTargetPixels = 1 << 16

    /// The JPEG bytes of `image`.
    ///
    /// - Parameters:
    ///   - quality: 1 … 100 (libjpeg's scale).
    ///   - matte: the colour under transparent pixels of an RGBA image, channels 0 … 1.
    ///   - threads: cores to use; nil = all. The output is the same for any value.
    ///   - cancellation: checked before each strip; its error is thrown once it fires.
    public static func encode(_ image: ImageBuffer, quality: Int = defaultQuality, matte: SIMD3<Float> = defaultMatte,
                              chroma: ChromaSubsampling = .automatic, threads: Int? = nil,
                              cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        _ = try ImageLimits.checkedByteCount(width: image.width, height: image.height, channels: image.channels, what: "JPEG image")
        guard image.width <= 0xFFFF, image.height <= 0xFFFF else {
            throw SplatError(.tooLarge, "JPEG image is \(image.width)×\(image.height); JPEG allows at most 65535 pixels per side")
        }
        guard image.pixels.count == image.width * image.height * image.channels else {
            throw SplatError(.invalidArgument, "pixel buffer holds \(image.pixels.count) bytes, expected \(image.width * image.height * image.channels)")
        }
        guard qualities.contains(quality) else {
            throw SplatError(.invalidArgument, "JPEG quality \(quality) is outside \(qualities)", field: "quality")
        }
        if let threads, threads < 1 { throw SplatError(.invalidArgument, "threads \(threads) must be at least 1", field: "threads") }
        try AlphaMatte.validate(matte)

        let full = chroma == .full444 || (chroma == .automatic && quality >= 90)
        let (subsampling, mcuSide) = full ? (TJSAMP_444, 8) : (TJSAMP_420, 16)
        let width = image.width, height = image.height
        let mcusPerRow = (width + mcuSide - 1) / mcuSide
        // Whole MCU rows per strip, and the restart interval (MCUs per strip) within 16 bits.
        let mcuRows = max(1, min(0xFFFF / mcusPerRow, stripTargetPixels / (width * mcuSide)))
        let stripRows = mcuRows * mcuSide
        let stripCount = (height + stripRows - 1) / stripRows
        let channels = image.channels

        let strips = try image.pixels.withUnsafeBufferPointer { (pixels) throws(SplatError) -> [JPEGRestartJoiner.Strip] in
            let base = pixels.baseAddress!
            return try Parallel.map(stripCount, threads: threads) { (index) throws(SplatError) -> JPEGRestartJoiner.Strip in
                try cancellation.check("while encoding the JPEG")
                let rows = index * stripRows..<min(height, (index + 1) * stripRows)
                let source = base + rows.lowerBound * width * channels
                let bytes: [UInt8]
                if channels == 4 {
                    let rgb = UnsafeMutablePointer<UInt8>.allocate(capacity: rows.count * width * 3)
                    defer { rgb.deallocate() }
                    AlphaMatte.composite(source, count: rows.count * width, matte: matte, into: rgb)
                    bytes = try compress(rgb, width: width, height: rows.count, subsampling: subsampling, quality: quality)
                } else {
                    bytes = try compress(source, width: width, height: rows.count, subsampling: subsampling, quality: quality)
                }
                return try JPEGRestartJoiner.Strip(bytes)
            }
        }
        return try JPEGRestartJoiner.join(strips, height: height, interval: mcusPerRow * mcuRows, cancellation: cancellation)
    }

    /// Encodes `image` and writes it to `path` atomically (temporary file + rename).
    public static func write(_ image: ImageBuffer, to path: String, quality: Int = defaultQuality, matte: SIMD3<Float> = defaultMatte,
                             chroma: ChromaSubsampling = .automatic, threads: Int? = nil,
                             cancellation: CancellationToken = .none) throws(SplatError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(image, quality: quality, matte: matte, chroma: chroma, threads: threads, cancellation: cancellation)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }

    /// One TurboJPEG call over `height` rows of packed RGB.
    private static func compress(_ rgb: UnsafePointer<UInt8>, width: Int, height: Int, subsampling: TJSAMP,
                                 quality: Int) throws(SplatError) -> [UInt8] {
        guard let handle = tjInitCompress() else {
            throw SplatError(.io, "TurboJPEG could not create a compressor (out of memory)")
        }
        defer { tjDestroy(handle) }
        let capacity = Int(tjBufSize(Int32(width), Int32(height), Int32(subsampling.rawValue)))
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var output: UnsafeMutablePointer<UInt8>? = buffer
        var size = UInt(capacity)
        // The accurate DCT: TurboJPEG's fast one loses visibly at the qualities thumbnails use.
        let flags = Int32(TJFLAG_NOREALLOC | TJFLAG_ACCURATEDCT)
        guard tjCompress2(handle, rgb, Int32(width), Int32(width * 3), Int32(height), Int32(TJPF_RGB.rawValue),
                          &output, &size, Int32(subsampling.rawValue), Int32(quality), flags) == 0 else {
            throw SplatError(.io, "TurboJPEG cannot encode the image: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }
}
