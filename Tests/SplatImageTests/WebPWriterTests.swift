import Foundation
import Testing
import SplatCore
import TestSupport
import CWebP
@testable import SplatImage

@Suite("WebPWriter")
struct WebPWriterTests {
    @Test(arguments: [3, 4])
    func losslessStillRoundTripsExactly(channels: Int) throws {
        let image = PNGWriterTests.noise(width: 33, height: 17, channels: channels, seed: 5)
        let bytes = try WebPWriter.encode(image)
        #expect(Array(bytes.prefix(4)) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WEBP".utf8))
        #expect(Array(bytes[12..<16]) == Array("VP8L".utf8)) // a plain lossless bitstream, alpha included
        let decoded = try AnimatedWebPReader.read(bytes: bytes)
        #expect(decoded.frameCount == 1)
        let expected = channels == 4 ? image : AnimatedWebPTests.opaqueRGBA(image)
        #expect(decoded.frames.first == expected)
    }

    @Test func goldenAsLosslessWebPMatchesThePNG() throws {
        let golden = try PNGReader.read(path: Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path)
        let dir = try Fixtures.temporaryDirectory("webp")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("thumb.webp").path
        try WebPWriter.write(golden, to: path, effort: 1)
        let decoded = try AnimatedWebPReader.read(path: path)
        #expect(decoded.canvasWidth == 256 && decoded.canvasHeight == 256)
        #expect(decoded.frames.first == AnimatedWebPTests.opaqueRGBA(golden))
    }

    @Test func lossyIsSmallerAndClose() throws {
        let golden = try PNGReader.read(path: Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path)
        let lossless = try WebPWriter.encode(golden)
        let lossy = try WebPWriter.encode(golden, compression: .lossy(quality: 80))
        #expect(lossy.count < lossless.count)
        let decoded = try AnimatedWebPReader.read(bytes: lossy)
        let report = ImageComparison.compare(decoded.frames[0], AnimatedWebPTests.opaqueRGBA(golden))
        #expect(report.psnr > 28 && report.psnr.isFinite, "\(report)")
    }

    /// An image with every kind of alpha: a soft-edged disc (full, partial and zero alpha) over
    /// a colour gradient, as a render with a transparent background has.
    static func softDisc(side: Int) -> ImageBuffer {
        var image = PNGWriterTests.renderLike(width: side, height: side, channels: 4, seed: 9)
        let centre = Double(side) / 2, radius = Double(side) * 0.4
        for y in 0..<side {
            for x in 0..<side {
                let d = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                image.pixels[(y * side + x) * 4 + 3] = UInt8(max(0, min(255, (radius - d) * 16)))
            }
        }
        return image
    }

    /// Lossy with alpha is VP8X + ALPH + VP8 (the planes encoded apart, each under the progress
    /// hook): alpha comes back exactly through libwebp and through Pillow, colour stays close
    /// where it shows, and the file is about the size libwebp's own alpha encoder makes.
    @Test func lossyWithAlphaKeepsTheAlphaExactly() throws {
        let image = Self.softDisc(side: 200)
        let bytes = try WebPWriter.encode(image, compression: .lossy(quality: 90))
        #expect(try WebPContainer.chunks(of: bytes).map(\.fourCC) == ["VP8X", "ALPH", "VP8 "])
        let decoded = try #require(try AnimatedWebPReader.read(bytes: bytes).frames.first)
        let pillow = try #require(try PillowDecoder.decode(bytes, suffix: "webp").image)
        for (name, frame) in [("libwebp", decoded), ("Pillow", pillow)] {
            #expect(frame.width == 200 && frame.channels == 4, "\(name)")
            let alpha = stride(from: 3, to: frame.pixels.count, by: 4).map { frame.pixels[$0] }
            let expected = stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
            #expect(alpha == expected, "\(name): alpha differs")
        }
        // Colour where it is opaque (under alpha 0 the encoder may flatten it).
        var original: [UInt8] = [], back: [UInt8] = []
        for k in stride(from: 0, to: image.pixels.count, by: 4) where image.pixels[k + 3] == 255 {
            original += image.pixels[k..<k + 3]
            back += decoded.pixels[k..<k + 3]
        }
        let report = ImageComparison.compare(ImageBuffer(width: original.count / 3, height: 1, channels: 3, pixels: original),
                                             ImageBuffer(width: back.count / 3, height: 1, channels: 3, pixels: back))
        #expect(report.psnr > 30, "\(report)")

        var output: UnsafeMutablePointer<UInt8>?
        let reference = image.pixels.withUnsafeBufferPointer { WebPEncodeRGBA($0.baseAddress, 200, 200, 800, 90, &output) }
        WebPFree(output)
        #expect(reference > 0 && Double(bytes.count) <= 1.1 * Double(reference), "\(bytes.count) bytes against libwebp's \(reference)")
    }

    /// Opaque RGBA and RGB stay the plain lossy form: no alpha plane to carry.
    @Test func opaqueLossyHasNoAlphaChunk() throws {
        var opaque = Self.softDisc(side: 64)
        for k in stride(from: 3, to: opaque.pixels.count, by: 4) { opaque.pixels[k] = 255 }
        #expect(!WebPWriter.hasTransparency(opaque))
        #expect(WebPWriter.hasTransparency(Self.softDisc(side: 64)))
        for image in [opaque, AnimatedWebPTests.opaqueRGBA(PNGWriterTests.renderLike(width: 64, height: 64, channels: 3))] {
            let bytes = try WebPWriter.encode(image, compression: .lossy(quality: 80))
            #expect(try WebPContainer.chunks(of: bytes).map(\.fourCC) == ["VP8 "])
        }
    }

    /// The container layer: chunks are read with their padding skipped, the assembled file
    /// pads odd payloads and states its size, and a file that is not RIFF/WEBP or whose chunk
    /// runs past the end is an `.io` error (libwebp wrote it, so it is a library fault).
    @Test func containerChunksAndAssembly() throws {
        let file = WebPContainer.stillImage(width: 300, height: 2, alphaStream: [7, 8, 9], colour: [1, 2, 3, 4][...])
        #expect(file.count == 12 + (8 + 10) + (8 + 4) + (8 + 4))
        #expect(Array(file[4..<8]) == [UInt8(file.count - 8), 0, 0, 0])
        let chunks = try WebPContainer.chunks(of: file)
        #expect(chunks.map(\.fourCC) == ["VP8X", "ALPH", "VP8 "])
        #expect(Array(chunks[0].payload) == [0x10, 0, 0, 0, 0x2B, 0x01, 0, 0x01, 0, 0]) // alpha flag, 300 − 1, 2 − 1
        #expect(Array(chunks[1].payload) == [1, 7, 8, 9] && Array(chunks[2].payload) == [1, 2, 3, 4])
        #expect(Array(try WebPContainer.imageStream(ofLossless: [0x2F, 1, 2, 3, 4, 5, 6][...])) == [5, 6])

        func kind(_ body: () throws(SplatError) -> Void) -> SplatErrorKind? {
            do throws(SplatError) { try body(); return nil } catch { return error.kind }
        }
        #expect(kind { () throws(SplatError) in _ = try WebPContainer.chunks(of: Array(file.prefix(10))) } == .io)
        var overrun = file
        overrun[16] = 0xFF
        #expect(kind { () throws(SplatError) in _ = try WebPContainer.chunks(of: overrun) } == .io)
        #expect(kind { () throws(SplatError) in _ = try WebPContainer.imageStream(ofLossless: [0x2E, 0, 0, 0, 0, 1][...]) } == .io)
    }

    @Test func badInputGivesTypedErrors() {
        func kind(_ image: ImageBuffer, _ compression: WebPCompression = .lossless, effort: Int = 4) -> SplatErrorKind? {
            do { _ = try WebPWriter.encode(image, compression: compression, effort: effort); return nil } catch { return error.kind }
        }
        #expect(kind(ImageBuffer(width: 0, height: 3, channels: 3)) == .invalidArgument)
        #expect(kind(ImageBuffer(width: 1, height: 16384, channels: 4)) == .tooLarge)
        #expect(kind(ImageBuffer(width: 2, height: 2, channels: 3), effort: -1) == .invalidArgument)
        #expect(kind(ImageBuffer(width: 2, height: 2, channels: 3), .lossy(quality: -5)) == .invalidArgument)
    }
}
