import SplatCore

/// The one place a format becomes an encoder: renders, thumbnails and contact sheets are all
/// written through `encode`, so every output takes the same formats with the same meaning of
/// `quality` and `matte`.
///
/// | format | `quality` nil | `quality` Q | alpha |
/// |---|---|---|---|
/// | png | lossless | refused (`invalid_argument`) | kept |
/// | webp | lossless | lossy VP8, Q in 0 … 100 | kept (lossless alpha plane) |
/// | jpeg | 90 | Q in 1 … 100, rounded to an integer | composited onto `matte` (white when nil) |
public enum StillImageEncoder {
    /// libwebp's effort (`method`) for still images: its default balance of time and size.
    public static let webpEffort = 4

    /// The bytes of `image` in `format`.
    ///
    /// - Parameters:
    ///   - quality: see the table above; nil = each format's default.
    ///   - matte: the colour under transparent pixels, channels 0 … 1, for formats without alpha
    ///     (JPEG); ignored by PNG and WebP, which keep alpha. nil = white.
    ///   - threads: cores for PNG and JPEG (nil = all); the bytes never depend on it.
    ///   - cancellation: checked between bands, strips or libwebp's progress steps; once it
    ///     fires the encode stops with its `timeout`, `interrupted` or `cancelled` error.
    public static func encode(_ image: ImageBuffer, as format: ImageFormat, quality: Double? = nil, matte: SIMD3<Float>? = nil,
                              threads: Int? = nil, cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        if let quality, !quality.isFinite {
            throw SplatError(.invalidArgument, "quality \(quality) is not a number", field: "quality")
        }
        switch format {
        case .png:
            if let quality {
                throw SplatError(.invalidArgument, "PNG is lossless and takes no quality (got \(quality)); use .webp or .jpg for lossy output",
                                 field: "quality")
            }
            return try PNGWriter.encode(image, threads: threads, cancellation: cancellation)
        case .webp:
            let compression: WebPCompression = quality.map { .lossy(quality: $0) } ?? .lossless
            return try WebPWriter.encode(image, compression: compression, effort: webpEffort, cancellation: cancellation)
        case .jpeg:
            let q = quality ?? Double(JPEGWriter.defaultQuality)
            guard (Double(JPEGWriter.qualities.lowerBound)...Double(JPEGWriter.qualities.upperBound)).contains(q) else {
                throw SplatError(.invalidArgument, "JPEG quality \(q) is outside \(JPEGWriter.qualities)", field: "quality")
            }
            return try JPEGWriter.encode(image, quality: Int(q.rounded()), matte: matte ?? JPEGWriter.defaultMatte,
                                         threads: threads, cancellation: cancellation)
        }
    }

    /// Encodes `image` in `format` (nil: from the path's extension, refusing unknown ones) and
    /// writes it to `path` atomically (temporary file + rename). "-" is not special here.
    public static func write(_ image: ImageBuffer, to path: String, as format: ImageFormat? = nil, quality: Double? = nil,
                             matte: SIMD3<Float>? = nil, threads: Int? = nil,
                             cancellation: CancellationToken = .none) throws(SplatError) {
        let bytes: [UInt8]
        do throws(SplatError) {
            let chosen: ImageFormat
            if let format { chosen = format } else { chosen = try ImageFormat.forOutput(path: path) }
            bytes = try encode(image, as: chosen, quality: quality, matte: matte, threads: threads, cancellation: cancellation)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }

    /// Whether encoding `image` as `format` composites it onto a matte (JPEG of an RGBA image),
    /// so a caller can say so when no background was asked for.
    public static func flattensAlpha(of image: ImageBuffer, as format: ImageFormat) -> Bool {
        image.hasAlpha && !format.supportsAlpha
    }
}
