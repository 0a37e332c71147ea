import Foundation
import CWebP
import SplatCore

/// Decodes animated (or still) WebP files into full RGBA canvases through libwebp's
/// `WebPAnimDecoder` (libwebpdemux), which applies each frame's offset, blending and disposal.
public enum AnimatedWebPReader: ImageFileReader {
    /// A decoded animation: one RGBA canvas per frame, as a player would show it.
    public struct Animation: Sendable, Equatable {
        public var canvasWidth: Int
        public var canvasHeight: Int
        /// 0 = forever.
        public var loopCount: Int
        /// The canvas background colour stored in the file, as libwebp reports it: 32-bit ARGB (alpha in
        /// the top byte), which the ANIM chunk stores little-endian as blue, green, red, alpha.
        public var backgroundColor: UInt32
        /// RGBA canvases, one per frame, in display order.
        public var frames: [ImageBuffer]
        /// When each frame ends, in ms from the start (the frame's duration is the step from the previous one).
        public var endTimestampsMs: [Int]

        public var frameCount: Int { frames.count }

        /// Each frame's display time in ms.
        public var durationsMs: [Int] {
            zip(endTimestampsMs, [0] + endTimestampsMs.dropLast()).map { $0 - $1 }
        }
    }

    /// Decodes WebP bytes held in memory. `file` only labels errors; `maxPixels` caps frames × canvas pixels.
    public static func read(bytes: UnsafeRawBufferPointer, file: String? = nil, maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> Animation {
        guard bytes.count >= 12, let base = bytes.baseAddress,
              bytes.prefix(4).elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else {
            throw SplatError(.badMagic, "not a WebP file: no RIFF….WEBP header", file: file, offset: 0)
        }
        var decoderOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&decoderOptions) != 0 else {
            throw SplatError(.io, "libwebpdemux rejected its own ABI version (mismatched headers and library)", file: file)
        }
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        var webpData = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: bytes.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &decoderOptions) else {
            throw SplatError(.corrupt, "libwebp cannot parse the WebP container", file: file)
        }
        defer { WebPAnimDecoderDelete(decoder) }

        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            throw SplatError(.corrupt, "libwebp cannot read the animation info", file: file)
        }
        let width = Int(info.canvas_width), height = Int(info.canvas_height), count = Int(info.frame_count)
        let frameBytes = try ImageLimits.checkedByteCount(width: width, height: height, channels: 4,
                                                          maxPixels: maxPixels, what: "WebP canvas", file: file)
        guard count >= 1, let totalPixels = CheckedSize.mul(width * height, count), totalPixels <= maxPixels else {
            throw SplatError(count < 1 ? .corrupt : .tooLarge,
                             "\(count) frames of \(width)×\(height) pixels; the limit is \(maxPixels) pixels in all", file: file,
                             field: "frame_count")
        }

        var frames: [ImageBuffer] = []
        var ends: [Int] = []
        frames.reserveCapacity(count)
        ends.reserveCapacity(count)
        while WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>? = nil
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                throw SplatError(.corrupt, "libwebp cannot decode frame \(frames.count) of \(count)", file: file)
            }
            // The canvas is libwebp's and is overwritten by the next call: copy it.
            let pixels = Array(UnsafeBufferPointer(start: canvas, count: frameBytes))
            frames.append(ImageBuffer(width: width, height: height, channels: 4, pixels: pixels))
            ends.append(Int(timestamp))
        }
        guard frames.count == count else {
            throw SplatError(.corrupt, "decoded \(frames.count) frames, the header declares \(count)", file: file, field: "frame_count")
        }
        return Animation(canvasWidth: width, canvasHeight: height, loopCount: Int(info.loop_count),
                         backgroundColor: info.bgcolor, frames: frames, endTimestampsMs: ends)
    }
}
