import Foundation
import Testing
import CTurboJPEG
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("JPEGWriter")
struct JPEGWriterTests {
    static let golden = Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path

    /// The golden render with an alpha channel: opaque in the middle, fading to 0 at the edges.
    static func goldenWithAlpha() throws -> ImageBuffer {
        let rgb = try PNGReader.read(path: golden)
        var pixels: [UInt8] = []
        pixels.reserveCapacity(rgb.width * rgb.height * 4)
        for y in 0..<rgb.height {
            for x in 0..<rgb.width {
                let edge = min(x, y, rgb.width - 1 - x, rgb.height - 1 - y)
                let p = (y * rgb.width + x) * 3
                pixels += rgb.pixels[p..<p + 3] + [UInt8(min(255, edge * 6))]
            }
        }
        return ImageBuffer(width: rgb.width, height: rgb.height, channels: 4, pixels: pixels)
    }

    /// round(c·a + m·(1 − a)) per channel, in Double: the compositing rule, computed apart.
    static func composited(_ image: ImageBuffer, over matte: SIMD3<Double>) -> ImageBuffer {
        var out: [UInt8] = []
        for i in stride(from: 0, to: image.pixels.count, by: 4) {
            let a = Double(image.pixels[i + 3]) / 255
            for k in 0..<3 { out.append(UInt8((Double(image.pixels[i + k]) * a + matte[k] * 255 * (1 - a) + 0.5).rounded(.down))) }
        }
        return ImageBuffer(width: image.width, height: image.height, channels: 3, pixels: out)
    }

    @Test func rgbDecodesCloseAtTheDefaultQuality() throws {
        let image = try PNGReader.read(path: Self.golden)
        let bytes = try JPEGWriter.encode(image)
        #expect(Array(bytes.prefix(2)) == [0xFF, 0xD8] && Array(bytes.suffix(2)) == [0xFF, 0xD9])
        let decoded = try TurboJPEGTestCodec.decode(bytes)
        #expect(decoded.image.width == 256 && decoded.image.height == 256)
        #expect(decoded.subsampling == Int32(TJSAMP_444.rawValue)) // quality 90 keeps full chroma
        let psnr = ImageComparison.compare(decoded.image, image).psnr
        #expect(psnr >= 38 && psnr.isFinite, "PSNR \(psnr)")
        let pillow = try PillowDecoder.decode(bytes, suffix: "jpg")
        #expect(pillow.format == "JPEG" && pillow.width == 256 && pillow.height == 256 && pillow.mode == "RGB")
        #expect(try ImageComparison.compare(#require(pillow.image), image).psnr >= 38)
    }

    @Test(arguments: [nil, SIMD3<Float>(0.2, 0.4, 0.6)])
    func rgbaIsCompositedOntoTheMatte(matte: SIMD3<Float>?) throws {
        let image = try Self.goldenWithAlpha()
        // Without a matte the documented default, white, is used.
        let bytes = try matte.map { try JPEGWriter.encode(image, matte: $0) } ?? JPEGWriter.encode(image)
        let expected = Self.composited(image, over: SIMD3<Double>(matte ?? SIMD3<Float>(1, 1, 1)))
        let decoded = try TurboJPEGTestCodec.decode(bytes).image
        let psnr = ImageComparison.compare(decoded, expected).psnr
        #expect(psnr >= 38, "PSNR \(psnr)")
        // The corner pixel is fully transparent: it shows the matte.
        let corner = Array(decoded.pixels.prefix(3)).map(Int.init)
        let m = (matte ?? SIMD3<Float>(1, 1, 1)) * 255
        for k in 0..<3 { #expect(abs(corner[k] - Int(m[k].rounded())) <= 3, "corner \(corner)") }
    }

    @Test func compositingOnKnownPixels() throws {
        // (200, 100, 0) at alpha 128 over white: (200·128 + 255·127) / 255 = 227.39 → 227, 177.2 → 177, 127.
        // Over (0.2, 0.4, 0.6) = (51, 102, 153): 125.79 → 126, 100.99 → 101, 76.2 → 76.
        let pixels: [UInt8] = [200, 100, 0, 128, 10, 20, 30, 0, 10, 20, 30, 255, 255, 255, 255, 1]
        let image = ImageBuffer(width: 4, height: 1, channels: 4, pixels: pixels)
        #expect(try image.flattened(onto: SIMD3(1, 1, 1)).pixels == [227, 177, 127, 255, 255, 255, 10, 20, 30, 255, 255, 255])
        #expect(try image.flattened(onto: SIMD3(0.2, 0.4, 0.6)).pixels == [126, 101, 76, 51, 102, 153, 10, 20, 30, 52, 103, 153])
        let noise = PNGWriterTests.noise(width: 40, height: 30, channels: 4, seed: 17)
        #expect(try noise.flattened(onto: SIMD3(0.3, 0.7, 0.1)) == Self.composited(noise, over: SIMD3(0.3, 0.7, 0.1)))
        #expect(try PNGWriterTests.noise(width: 3, height: 3, channels: 3).flattened(onto: SIMD3(0, 0, 0)) == PNGWriterTests.noise(width: 3, height: 3, channels: 3))
    }

    /// Strips joined with restart markers decode to exactly the pixels of one TurboJPEG call
    /// over the whole image, for both subsamplings and sizes that are not whole MCUs.
    @Test(arguments: [(90, 0), (75, 2)])
    func stripsDecodeLikeOneWholeEncode(quality: Int, subsampling: Int) throws {
        let image = PNGWriterTests.renderLike(width: 333, height: 517, channels: 3, seed: 4)
        let bytes = try JPEGWriter.encode(image, quality: quality)
        let whole = try TurboJPEGTestCodec.encodeWhole(image, quality: Int32(quality), subsampling: TJSAMP(UInt32(subsampling)))
        let joined = try TurboJPEGTestCodec.decode(bytes)
        #expect(joined.subsampling == Int32(subsampling))
        #expect(joined.image == (try TurboJPEGTestCodec.decode(whole)).image)
        #expect(try PillowDecoder.decode(bytes, suffix: "jpg").image == (try PillowDecoder.decode(whole, suffix: "jpg")).image)
        let mcuSide = subsampling == 0 ? 8 : 16
        let stripRows = max(1, JPEGWriter.stripTargetPixels / (333 * mcuSide)) * mcuSide
        let strips = (517 + stripRows - 1) / stripRows
        #expect(strips > 2)
        #expect(TurboJPEGTestCodec.count(marker: { (0xD0...0xD7).contains($0) }, in: bytes) == strips - 1)
        #expect(TurboJPEGTestCodec.count(marker: { $0 == 0xDD }, in: bytes) == 1)
        // The stitched file costs only its markers and byte padding over the single encode.
        #expect(bytes.count <= whole.count + 8 * strips)
    }

    @Test func bytesDoNotDependOnTheThreadCount() throws {
        let image = PNGWriterTests.renderLike(width: 200, height: 700, channels: 4)
        let all = try JPEGWriter.encode(image)
        #expect(try JPEGWriter.encode(image, threads: 1) == all)
        #expect(try JPEGWriter.encode(image, threads: 3) == all)
    }

    @Test func badArgumentsGiveTypedErrors() {
        func kind(_ image: ImageBuffer, quality: Int = 90, matte: SIMD3<Float> = SIMD3(1, 1, 1), threads: Int? = nil) -> SplatErrorKind? {
            do { _ = try JPEGWriter.encode(image, quality: quality, matte: matte, threads: threads); return nil } catch { return error.kind }
        }
        let small = PNGWriterTests.noise(width: 4, height: 4, channels: 4)
        #expect(kind(small) == nil)
        #expect(kind(small, quality: 0) == .invalidArgument)
        #expect(kind(small, quality: 101) == .invalidArgument)
        #expect(kind(small, matte: SIMD3(1.5, 0, 0)) == .invalidArgument)
        #expect(kind(small, matte: SIMD3(.nan, 0, 0)) == .invalidArgument)
        #expect(kind(small, threads: 0) == .invalidArgument)
        #expect(kind(ImageBuffer(width: 0, height: 4, channels: 3)) == .invalidArgument)
        #expect(kind(ImageBuffer(width: 65536, height: 1, channels: 3)) == .tooLarge)
    }
}
