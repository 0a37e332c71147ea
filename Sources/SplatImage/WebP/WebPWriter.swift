import CWebP
import SplatCore

/// Encodes one image as a still WebP (lossless by default), e.g. for thumbnails.
/// `AnimatedWebPReader` reads the result back as a one-frame animation.
public enum WebPWriter {
    /// The WebP bytes of `image`. `effort` is libwebp's `method`, 0 (fastest) … 6 (smallest).
    /// `cancellation` stops libwebp through its progress hook; since lossless encoding reaches
    /// the hook only between passes, the encode runs on its own thread (`DetachedEncode`) and
    /// this call returns the token's error as soon as it fires. Lossy output of an image with
    /// transparency is written as VP8X + ALPH + VP8 from two encodes that both reach the hook:
    /// libwebp's own alpha encoder never does (`WebPContainer`).
    public static func encode(_ image: ImageBuffer, compression: WebPCompression = .lossless, effort: Int = 4,
                              cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        _ = try ImageLimits.checkedByteCount(width: image.width, height: image.height, channels: image.channels, what: "WebP image")
        guard image.width <= ImageLimits.maxWebPSide, image.height <= ImageLimits.maxWebPSide else {
            throw SplatError(.tooLarge, "WebP image is \(image.width)×\(image.height); WebP allows at most \(ImageLimits.maxWebPSide) pixels per side")
        }
        let config = try WebPEncoderSettings.make(compression: compression, effort: effort)
        let lossless = compression == .lossless
        return try DetachedEncode.run(cancellation: cancellation, point: "while encoding the WebP") { () throws(SplatError) in
            if !lossless && hasTransparency(image) {
                return try encodeLossyWithAlpha(image, config: config, effort: effort, cancellation: cancellation)
            }
            var picture = try WebPEncoderSettings.picture(from: image, argb: lossless)
            defer { WebPPictureFree(&picture) }
            return try encode(&picture, config: config, cancellation: cancellation)
        }
    }

    /// Lossy colour with lossless alpha, each plane encoded with the progress hook (see
    /// `WebPContainer`): the alpha plane as a lossless picture with alpha in green, at the
    /// settings libwebp gives its own alpha encoder (quality 8 × effort, exact), then the colour
    /// with its alpha dropped after the transparent area is flattened for compression, as
    /// libwebp does before it encodes a lossy picture.
    static func encodeLossyWithAlpha(_ image: ImageBuffer, config: WebPConfig, effort: Int,
                                     cancellation: CancellationToken) throws(SplatError) -> [UInt8] {
        var alphaConfig = try WebPEncoderSettings.make(compression: .lossless, effort: effort)
        alphaConfig.quality = 8 * Float(effort)
        var plane = try alphaPlane(of: image)
        // Freed before the colour picture exists, so the two planes are never held together.
        let alphaEncode = Result { () throws(SplatError) in try encode(&plane, config: alphaConfig, cancellation: cancellation) }
        WebPPictureFree(&plane)
        let alphaFile = try alphaEncode.get()
        guard let vp8l = try WebPContainer.chunks(of: alphaFile).first(where: { $0.fourCC == "VP8L" }) else {
            throw SplatError(.io, "libwebp wrote no lossless bitstream for the alpha plane")
        }
        let alphaStream = try WebPContainer.imageStream(ofLossless: vp8l.payload)

        var colour = try WebPEncoderSettings.picture(from: image, argb: false)
        defer { WebPPictureFree(&colour) }
        WebPCleanupTransparentArea(&colour)
        // The alpha plane stays in the picture's allocation (freed with it); without the pointer
        // the encoder sees an opaque picture and writes a plain VP8 bitstream.
        colour.a = nil
        colour.a_stride = 0
        colour.colorspace = WEBP_YUV420
        let colourFile = try encode(&colour, config: config, cancellation: cancellation)
        guard let vp8 = try WebPContainer.chunks(of: colourFile).first(where: { $0.fourCC == "VP8 " }) else {
            throw SplatError(.io, "libwebp wrote no lossy bitstream for the colour")
        }
        return WebPContainer.stillImage(width: image.width, height: image.height, alphaStream: alphaStream, colour: vp8.payload)
    }

    /// An ARGB picture of `image`'s alpha in the green channel (opaque, red and blue zero): the
    /// plane an ALPH chunk's lossless stream encodes. The caller frees it.
    private static func alphaPlane(of image: ImageBuffer) throws(SplatError) -> WebPPicture {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw SplatError(.io, "libwebp rejected its own ABI version (mismatched headers and library)")
        }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = 1
        guard WebPPictureAlloc(&picture) != 0, let argb = picture.argb else {
            throw SplatError(.io, "libwebp could not take a \(image.width)×\(image.height) alpha plane (out of memory)")
        }
        let stride = Int(picture.argb_stride), width = image.width
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<image.height {
                let row = argb + y * stride, source = pixels.baseAddress! + y * width * 4 + 3
                for x in 0..<width { row[x] = 0xFF00_0000 | UInt32(source[4 * x]) << 8 }
            }
        }
        return picture
    }

    /// Whether an RGBA image has an alpha below 255 (libwebp writes no alpha plane otherwise).
    static func hasTransparency(_ image: ImageBuffer) -> Bool {
        guard image.hasAlpha else { return false }
        return image.pixels.withUnsafeBufferPointer { pixels in
            var k = 3
            while k < pixels.count {
                if pixels[k] != 255 { return true }
                k += 4
            }
            return false
        }
    }

    /// `picture` encoded with `config` and the token's progress hook: a whole WebP file.
    private static func encode(_ picture: inout WebPPicture, config: WebPConfig,
                               cancellation: CancellationToken) throws(SplatError) -> [UInt8] {
        var config = config
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
