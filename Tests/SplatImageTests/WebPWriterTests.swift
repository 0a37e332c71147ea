import Foundation
import Testing
import SplatCore
import TestSupport
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
