import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("AnimatedWebP")
struct AnimatedWebPTests {
    /// Frame `k` of a small scene: a gradient with a disc that moves, so consecutive frames
    /// share most pixels (exercising the encoder's sub-rectangles) but are never equal.
    static func frame(_ k: Int, width: Int = 48, height: Int = 32, channels: Int = 3) -> ImageBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * channels)
        let cx = 8 + 6 * k, cy = 16
        for y in 0..<height {
            for x in 0..<width {
                let inDisc = (x - cx) * (x - cx) + (y - cy) * (y - cy) < 36
                let r = inDisc ? 250 : (x * 5) % 250
                let g = inDisc ? 30 + k : (y * 7) % 250
                let b = (x + y + k * 3) % 256
                pixels += [UInt8(r), UInt8(g), UInt8(b)]
                if channels == 4 { pixels.append(UInt8(inDisc ? 255 : 1 + (x * 11 + y * 3 + k) % 254)) }
            }
        }
        return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// RGB pixels with an opaque alpha channel added, as the RGBA decoder returns them.
    static func opaqueRGBA(_ image: ImageBuffer) -> ImageBuffer {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(image.width * image.height * 4)
        for i in stride(from: 0, to: image.pixels.count, by: 3) { pixels += image.pixels[i..<i + 3] + [255] }
        return ImageBuffer(width: image.width, height: image.height, channels: 4, pixels: pixels)
    }

    @Test func losslessRGBFramesComeBackExactly() throws {
        let frames = (0..<5).map { Self.frame($0) }
        let bytes = try AnimatedWebPWriter.encode(frames: frames)
        #expect(Array(bytes.prefix(4)) == Array("RIFF".utf8))
        #expect(Array(bytes[8..<12]) == Array("WEBP".utf8))
        let animation = try AnimatedWebPReader.read(bytes: bytes)
        #expect(animation.frameCount == 5)
        #expect(animation.canvasWidth == 48 && animation.canvasHeight == 32)
        #expect(animation.loopCount == 0)
        #expect(animation.durationsMs == [100, 100, 100, 100, 100])
        for (k, decoded) in animation.frames.enumerated() {
            #expect(decoded == Self.opaqueRGBA(frames[k]), "frame \(k)")
        }
    }

    @Test func losslessRGBAFramesComeBackExactly() throws {
        let frames = (0..<4).map { Self.frame($0, channels: 4) }
        let animation = try AnimatedWebPReader.read(bytes: AnimatedWebPWriter.encode(frames: frames))
        #expect(animation.frameCount == 4)
        for (k, decoded) in animation.frames.enumerated() { #expect(decoded == frames[k], "frame \(k)") }
    }

    @Test func loopCountAndDurationAreStored() throws {
        let options = AnimatedWebPWriter.Options(frameDurationMs: 40, loopCount: 3, effort: 0)
        let animation = try AnimatedWebPReader.read(bytes: AnimatedWebPWriter.encode(frames: (0..<3).map { Self.frame($0) }, options: options))
        #expect(animation.loopCount == 3)
        #expect(animation.endTimestampsMs == [40, 80, 120])
        #expect(animation.durationsMs == [40, 40, 40])
    }

    @Test func lossyFramesStayCloseAndSmall() throws {
        // Smooth gradients: VP8's 4:2:0 chroma would blur hard colour edges far more.
        var frames: [ImageBuffer] = []
        for k in 0..<3 {
            var pixels: [UInt8] = []
            for y in 0..<48 {
                for x in 0..<64 { pixels += [UInt8(x * 3), UInt8(y * 5), UInt8((x + y) * 2 + k * 4)] }
            }
            frames.append(ImageBuffer(width: 64, height: 48, channels: 3, pixels: pixels))
        }
        let lossy = try AnimatedWebPWriter.encode(frames: frames, options: .init(compression: .lossy(quality: 95)))
        let animation = try AnimatedWebPReader.read(bytes: lossy)
        #expect(animation.frameCount == 3)
        for (k, decoded) in animation.frames.enumerated() {
            let report = ImageComparison.compare(decoded, Self.opaqueRGBA(frames[k]))
            #expect(report.psnr > 35 && report.psnr.isFinite, "frame \(k): \(report)")
        }
    }

    @Test func singleFrameReadsAsOneFrame() throws {
        let frame = Self.frame(2)
        let animation = try AnimatedWebPReader.read(bytes: AnimatedWebPWriter.encode(frames: [frame]))
        #expect(animation.frameCount == 1)
        #expect(animation.frames.first == Self.opaqueRGBA(frame))
    }

    @Test func writeGoesToDiskAtomically() throws {
        let dir = try Fixtures.temporaryDirectory("webp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("spin.webp").path
        let frames = (0..<2).map { Self.frame($0) }
        try AnimatedWebPWriter.write(frames: frames, to: path)
        let animation = try AnimatedWebPReader.read(path: path)
        #expect(animation.frames.map { $0 } == frames.map(Self.opaqueRGBA))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["spin.webp"])

        let missing = dir.appendingPathComponent("nope/spin.webp").path
        #expect(throws: SplatError.self) { try AnimatedWebPWriter.write(frames: frames, to: missing) }
    }

    @Test func badRequestsAreRefusedWithTypedErrors() {
        func kind(_ frames: [ImageBuffer], _ options: AnimatedWebPWriter.Options = .init()) -> SplatErrorKind? {
            do { _ = try AnimatedWebPWriter.encode(frames: frames, options: options); return nil } catch { return error.kind }
        }
        let a = Self.frame(0)
        #expect(kind([]) == .invalidArgument)
        #expect(kind([a, Self.frame(0, width: 40)]) == .invalidArgument)
        #expect(kind([ImageBuffer(width: 16384, height: 1, channels: 3)]) == .tooLarge)
        #expect(kind([a], .init(frameDurationMs: 0)) == .invalidArgument)
        #expect(kind([a], .init(loopCount: -1)) == .invalidArgument)
        #expect(kind([a], .init(effort: 7)) == .invalidArgument)
        #expect(kind([a], .init(compression: .lossy(quality: 101))) == .invalidArgument)
        #expect(kind([a], .init(compression: .lossy(quality: .nan))) == .invalidArgument)
    }

    @Test func readerRejectsBadInput() throws {
        func kind(_ bytes: [UInt8], maxPixels: Int = ImageLimits.maxPixels) -> SplatErrorKind? {
            do { _ = try AnimatedWebPReader.read(bytes: bytes, maxPixels: maxPixels); return nil } catch { return error.kind }
        }
        #expect(kind(Array("RIFF\0\0\0\0WEBX".utf8)) == .badMagic)
        #expect(kind(PNGSamples.gray3x2) == .badMagic)
        let good = try AnimatedWebPWriter.encode(frames: (0..<3).map { Self.frame($0) })
        #expect(kind(Array(good.prefix(good.count / 2))) == .corrupt)
        #expect(kind(good, maxPixels: 48 * 32 * 3 - 1) == .tooLarge)
        #expect(kind(good, maxPixels: 48 * 32 * 3) == nil)
    }
}

@Suite("AnimatedWebP canvas")
struct AnimatedWebPCanvasTests {
    @Test func rgbaFramesGetATransparentCanvas() throws {
        let frames = (0..<3).map { AnimatedWebPTests.frame($0, channels: 4) }
        // Even with a background colour given: frames with alpha are shown as rendered.
        let bytes = try AnimatedWebPWriter.encode(frames: frames, options: .init(backgroundColor: SIMD3(0.2, 0.4, 0.6)))
        #expect(try AnimatedWebPReader.read(bytes: bytes).backgroundColor == 0)
        let pillow = try PillowDecoder.decode(bytes, suffix: "webp")
        #expect(pillow.frameCount == 3)
        #expect(pillow.background == [0, 0, 0, 0])
    }

    @Test func rgbFramesGetTheBackgroundColourOrWhite() throws {
        let frames = (0..<2).map { AnimatedWebPTests.frame($0) }
        let coloured = try AnimatedWebPWriter.encode(frames: frames, options: .init(backgroundColor: SIMD3(0.2, 0.4, 0.6)))
        // ARGB: the chunk's bytes are blue, green, red, alpha = 153, 102, 51, 255.
        #expect(try AnimatedWebPReader.read(bytes: coloured).backgroundColor == 0xFF33_6699)
        let anim = try #require(coloured.indices.dropLast(12).first { Array(coloured[$0..<$0 + 4]) == Array("ANIM".utf8) })
        #expect(Array(coloured[anim + 8..<anim + 12]) == [153, 102, 51, 255])
        let pillowBackground = try PillowDecoder.decode(coloured, suffix: "webp").background
        #expect(pillowBackground == [51, 102, 153, 255], "\(String(describing: pillowBackground))")
        let plain = try AnimatedWebPWriter.encode(frames: frames)
        #expect(try AnimatedWebPReader.read(bytes: plain).backgroundColor == 0xFFFF_FFFF)
        #expect(AnimatedWebPWriter.canvasColor(for: frames, backgroundColor: SIMD3(1, 0, 0.5)) == 0xFFFF_0080)
    }

    @Test func badBackgroundIsRefused() {
        #expect(throws: SplatError.self) {
            try AnimatedWebPWriter.encode(frames: [AnimatedWebPTests.frame(0)], options: .init(backgroundColor: SIMD3(0, 2, 0)))
        }
    }
}
