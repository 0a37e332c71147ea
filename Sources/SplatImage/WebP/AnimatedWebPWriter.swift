import CWebP
import SplatCore

/// Writes a looping animated WebP from equal-size frames through libwebp's animation encoder
/// (`WebPAnimEncoder`, libwebpmux). The encoder stores each frame as the smallest changed
/// rectangle and chooses blending and disposal itself; decoding always rebuilds the full frames.
/// One frame alone may come out as a still WebP if that is smaller (libwebp's choice); readers
/// see it as a single-frame animation.
public enum AnimatedWebPWriter {
    /// How frames are compressed, timed and repeated.
    public struct Options: Sendable, Equatable {
        public typealias Compression = WebPCompression

        /// libwebp effort used unless told otherwise: the fastest. Lossless effort 4 took about
        /// 1 s for 12 frames of 256² on the development machine (0: 67 ms); a preview does not
        /// need it.
        public static let defaultEffort = 0
        /// Display time of a frame unless told otherwise: 10 frames per second.
        public static let defaultFrameDurationMs = 100

        public var compression: Compression
        /// How long each frame shows, 1 … 16 777 215 ms (the format's 24-bit field).
        public var frameDurationMs: Int
        /// How many times the animation plays; 0 = forever. At most 65 535.
        public var loopCount: Int
        /// libwebp's `method`: 0 (fastest) … 6 (smallest output).
        public var effort: Int
        /// The canvas colour stored for opaque (RGB) frames, channels 0 … 1 — the render's
        /// `--background`; nil = white. Frames with alpha always get a transparent canvas, so a
        /// player shows them over the page as they were rendered.
        public var backgroundColor: SIMD3<Float>?

        public init(compression: Compression = .lossless, frameDurationMs: Int = Options.defaultFrameDurationMs, loopCount: Int = 0,
                    effort: Int = Options.defaultEffort, backgroundColor: SIMD3<Float>? = nil) {
            self.compression = compression
            self.frameDurationMs = frameDurationMs
            self.loopCount = loopCount
            self.effort = effort
            self.backgroundColor = backgroundColor
        }
    }

    /// The ANIM chunk's background colour for `frames` as a 32-bit ARGB value (alpha in the top
    /// byte; the chunk stores it little-endian, i.e. blue, green, red, alpha — the container
    /// specification's byte order, as gif2webp, webpmux and Pillow read it): transparent black
    /// when any frame has alpha, else `backgroundColor` (white when nil), opaque, each channel
    /// rounded as floor(v·255 + 0.5).
    static func canvasColor(for frames: [ImageBuffer], backgroundColor: SIMD3<Float>?) -> UInt32 {
        if frames.contains(where: \.hasAlpha) { return 0 }
        let levels = ((backgroundColor ?? AlphaMatte.white) * 255 + 0.5).rounded(.down)
        return 0xFF00_0000 | UInt32(levels[0]) << 16 | UInt32(levels[1]) << 8 | UInt32(levels[2])
    }

    /// The bytes of an animated WebP showing `frames` in order. All frames must have the same
    /// width and height; RGB and RGBA frames may be mixed (RGB counts as opaque).
    /// `cancellation` is checked before each frame and polled inside libwebp's encoding through
    /// the pictures' progress hook; the work runs on its own thread (`DetachedEncode`), so the
    /// token's error is thrown as soon as it fires.
    public static func encode(frames: [ImageBuffer], options: Options = Options(),
                              cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        let (width, height) = try validate(frames: frames, options: options)
        // Each frame is a whole libwebp encode, reaching its progress hook only between passes:
        // the animation is made on a thread of its own so a fired token returns at once.
        return try DetachedEncode.run(cancellation: cancellation, point: "while encoding the animated WebP") { () throws(SplatError) in
            // libwebp keeps copies of the pictures, hook and token pointer included, until assembly.
            try withExtendedLifetime(cancellation) { () throws(SplatError) -> [UInt8] in
                try encode(frames: frames, width: width, height: height, options: options, cancellation: cancellation)
            }
        }
    }

    private static func encode(frames: [ImageBuffer], width: Int, height: Int, options: Options,
                               cancellation: CancellationToken) throws(SplatError) -> [UInt8] {

        var animOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&animOptions) != 0 else {
            throw SplatError(.io, "libwebpmux rejected its own ABI version (mismatched headers and library)")
        }
        animOptions.anim_params.loop_count = Int32(options.loopCount)
        animOptions.anim_params.bgcolor = canvasColor(for: frames, backgroundColor: options.backgroundColor)
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &animOptions) else {
            throw SplatError(.io, "cannot create the WebP animation encoder (out of memory or bad canvas \(width)×\(height))")
        }
        defer { WebPAnimEncoderDelete(encoder) }

        var config = try WebPEncoderSettings.make(compression: options.compression, effort: options.effort)

        for (index, frame) in frames.enumerated() {
            try cancellation.check("while encoding the animated WebP (frame \(index + 1) of \(frames.count))")
            var picture = try WebPEncoderSettings.picture(from: frame, argb: options.compression == .lossless)
            defer { WebPPictureFree(&picture) }
            WebPEncoderSettings.attach(cancellation, to: &picture)
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(index * options.frameDurationMs), &config) != 0 else {
                try cancellation.check("while encoding the animated WebP (frame \(index + 1) of \(frames.count))")
                throw SplatError(.io, "WebP animation encoder failed on frame \(index): \(encoderError(encoder))")
            }
        }
        try cancellation.check("while encoding the animated WebP (last frame)")
        // A final empty add sets the last frame's end time, hence its duration.
        guard WebPAnimEncoderAdd(encoder, nil, Int32(frames.count * options.frameDurationMs), nil) != 0 else {
            try cancellation.check("while encoding the animated WebP (last frame)")
            throw SplatError(.io, "WebP animation encoder failed to close the animation: \(encoderError(encoder))")
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else {
            WebPDataClear(&data)
            try cancellation.check("while assembling the animated WebP")
            throw SplatError(.io, "WebP animation encoder failed to assemble the file: \(encoderError(encoder))")
        }
        defer { WebPDataClear(&data) }
        return Array(UnsafeBufferPointer(start: bytes, count: data.size))
    }

    /// Encodes `frames` and writes the animation to `path` atomically (temporary file + rename).
    public static func write(frames: [ImageBuffer], options: Options = Options(), to path: String,
                             cancellation: CancellationToken = .none) throws(SplatError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(frames: frames, options: options, cancellation: cancellation)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }

    /// Checks frames and options before libwebp sees them; returns the canvas size.
    static func validate(frames: [ImageBuffer], options: Options) throws(SplatError) -> (Int, Int) {
        guard let first = frames.first else {
            throw SplatError(.invalidArgument, "an animation needs at least one frame")
        }
        let width = first.width, height = first.height
        _ = try ImageLimits.checkedByteCount(width: width, height: height, channels: 4, what: "animation frame")
        guard width <= ImageLimits.maxWebPSide, height <= ImageLimits.maxWebPSide else {
            throw SplatError(.tooLarge, "animation frame is \(width)×\(height); WebP allows at most \(ImageLimits.maxWebPSide) pixels per side")
        }
        for (index, frame) in frames.enumerated() where frame.width != width || frame.height != height {
            throw SplatError(.invalidArgument, "frame \(index) is \(frame.width)×\(frame.height), expected \(width)×\(height) like frame 0")
        }
        guard (1...0xFF_FFFF).contains(options.frameDurationMs) else {
            throw SplatError(.invalidArgument, "frame duration \(options.frameDurationMs) ms is outside 1…16777215", field: "frameDurationMs")
        }
        guard let total = CheckedSize.mul(frames.count, options.frameDurationMs), total <= Int(Int32.max) else {
            throw SplatError(.invalidArgument, "\(frames.count) frames of \(options.frameDurationMs) ms overflow WebP's timestamps", field: "frameDurationMs")
        }
        if let background = options.backgroundColor {
            for k in 0..<3 where !(background[k].isFinite && (0...1).contains(background[k])) {
                throw SplatError(.invalidArgument, "background colour \(background) has a channel outside 0…1", field: "backgroundColor")
            }
        }
        guard (0...65535).contains(options.loopCount) else {
            throw SplatError(.invalidArgument, "loop count \(options.loopCount) is outside 0…65535 (0 = forever)", field: "loopCount")
        }
        return (width, height)
    }

    static func encoderError(_ encoder: OpaquePointer) -> String {
        guard let message = WebPAnimEncoderGetError(encoder) else { return "unknown libwebp error" }
        let text = String(cString: message)
        return text.isEmpty ? "unknown libwebp error" : text
    }
}
