import CWebP
import SplatCore

/// Encodes one image as a still WebP (lossless by default), e.g. for thumbnails.
/// `AnimatedWebPReader` reads the result back as a one-frame animation.
public enum WebPWriter {
    /// The WebP bytes of `image`. `effort` is libwebp's `method`, 0 (fastest) … 6 (smallest).
    /// `cancellation` stops libwebp through its progress hook; since lossless encoding reaches
    /// the hook only between passes, the encode runs on its own thread (`DetachedEncode`) and
    /// this call returns the token's error as soon as it fires.
    public static func encode(_ image: ImageBuffer, compression: WebPCompression = .lossless, effort: Int = 4,
                              cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        _ = try ImageLimits.checkedByteCount(width: image.width, height: image.height, channels: image.channels, what: "WebP image")
        guard image.width <= ImageLimits.maxWebPSide, image.height <= ImageLimits.maxWebPSide else {
            throw SplatError(.tooLarge, "WebP image is \(image.width)×\(image.height); WebP allows at most \(ImageLimits.maxWebPSide) pixels per side")
        }
        let config = try WebPEncoderSettings.make(compression: compression, effort: effort)
        return try DetachedEncode.run(cancellation: cancellation, point: "while encoding the WebP") { () throws(SplatError) in
            try encode(image, config: config, argb: compression == .lossless, cancellation: cancellation)
        }
    }

    private static func encode(_ image: ImageBuffer, config: WebPConfig, argb: Bool,
                               cancellation: CancellationToken) throws(SplatError) -> [UInt8] {
        var config = config
        var picture = try WebPEncoderSettings.picture(from: image, argb: argb)
        defer { WebPPictureFree(&picture) }
        WebPEncoderSettings.attach(cancellation, to: &picture)

        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        let ok = withUnsafeMutablePointer(to: &memory) { memoryPointer -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(memoryPointer)
            return withExtendedLifetime(cancellation) { WebPEncode(&config, &picture) }
        }
        if picture.error_code == VP8_ENC_ERROR_USER_ABORT { try cancellation.check("while encoding the WebP") }
        guard ok != 0, let bytes = memory.mem else {
            throw SplatError(.io, "libwebp cannot encode the image (error code \(picture.error_code.rawValue))")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: memory.size))
    }

    /// Encodes `image` and writes it to `path` atomically (temporary file + rename).
    public static func write(_ image: ImageBuffer, to path: String, compression: WebPCompression = .lossless, effort: Int = 4,
                             cancellation: CancellationToken = .none) throws(SplatError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(image, compression: compression, effort: effort, cancellation: cancellation)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }
}
