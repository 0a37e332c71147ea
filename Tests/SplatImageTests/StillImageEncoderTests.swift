import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("ImageFormat and StillImageEncoder")
struct StillImageEncoderTests {
    @Test func extensionsNamesAndMimeTypes() {
        #expect(ImageFormat(path: "out/thumb.png") == .png)
        #expect(ImageFormat(path: "THUMB.PNG") == .png)
        #expect(ImageFormat(path: "a.b/thumb.webp") == .webp)
        #expect(ImageFormat(path: "thumb.jpg") == .jpeg)
        #expect(ImageFormat(path: "thumb.JPEG") == .jpeg)
        #expect(ImageFormat(path: "thumb.gif") == nil)
        #expect(ImageFormat(path: "thumb") == nil)
        #expect(ImageFormat(path: "dir.png/thumb") == nil)
        #expect(ImageFormat(path: ".png") == nil) // a hidden file's name, not an extension
        #expect(ImageFormat(path: "-") == nil)
        #expect(ImageFormat(fileExtension: ".webp") == .webp)
        #expect(ImageFormat(name: "jpeg") == .jpeg && ImageFormat(name: "jpg") == .jpeg && ImageFormat(name: "tiff") == nil)
        #expect(ImageFormat.allCases.map(\.mimeType) == ["image/png", "image/webp", "image/jpeg"])
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["png", "webp", "jpg"])
        #expect(ImageFormat.allCases.map(\.supportsAlpha) == [true, true, false])
        #expect(ImageFormat.allCases.allSatisfy { ImageFormat(fileExtension: $0.fileExtension) == $0 })
    }

    @Test func unknownExtensionIsRefused() throws {
        do {
            _ = try ImageFormat.forOutput(path: "thumb.gif")
            Issue.record("expected invalid_argument")
        } catch {
            #expect(error.kind == .invalidArgument && error.file == "thumb.gif")
        }
        let dir = try Fixtures.temporaryDirectory("still")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("thumb.tif").path
        #expect(throws: SplatError.self) { try StillImageEncoder.write(PNGWriterTests.noise(width: 2, height: 2, channels: 3), to: path) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Each format's bytes, read back by Pillow: PNG and lossless WebP exactly, JPEG closely over white.
    @Test func eachFormatDecodesWithPillow() throws {
        let image = try JPEGWriterTests.goldenWithAlpha()
        let png = try PillowDecoder.decode(StillImageEncoder.encode(image, as: .png), suffix: "png")
        #expect(png.format == "PNG" && png.image == image)
        let webp = try PillowDecoder.decode(StillImageEncoder.encode(image, as: .webp), suffix: "webp")
        #expect(webp.format == "WEBP" && webp.image == image)
        #expect(StillImageEncoder.flattensAlpha(of: image, as: .jpeg) && !StillImageEncoder.flattensAlpha(of: image, as: .webp))
        let jpeg = try PillowDecoder.decode(StillImageEncoder.encode(image, as: .jpeg), suffix: "jpg")
        let white = JPEGWriterTests.composited(image, over: SIMD3(1, 1, 1))
        #expect(jpeg.format == "JPEG" && jpeg.width == image.width && jpeg.height == image.height)
        #expect(try ImageComparison.compare(#require(jpeg.image), white).psnr >= 38)
    }

    @Test func qualityMeansLossyAndIsChecked() throws {
        let image = try PNGReader.read(path: JPEGWriterTests.golden)
        let lossless = try StillImageEncoder.encode(image, as: .webp)
        let lossy = try StillImageEncoder.encode(image, as: .webp, quality: 80)
        #expect(Array(lossless[12..<16]) == Array("VP8L".utf8) && Array(lossy[12..<16]) == Array("VP8 ".utf8))
        #expect(lossy.count < lossless.count)
        let q50 = try StillImageEncoder.encode(image, as: .jpeg, quality: 50)
        #expect(q50.count < (try StillImageEncoder.encode(image, as: .jpeg)).count)
        #expect(try StillImageEncoder.encode(image, as: .jpeg, quality: 49.6) == q50)

        func kind(_ format: ImageFormat, _ quality: Double?, matte: SIMD3<Float>? = nil) -> SplatErrorKind? {
            do { _ = try StillImageEncoder.encode(image, as: format, quality: quality, matte: matte); return nil } catch { return error.kind }
        }
        #expect(kind(.png, 90) == .invalidArgument)
        #expect(kind(.webp, 100.5) == .invalidArgument)
        #expect(kind(.webp, .nan) == .invalidArgument)
        #expect(kind(.jpeg, 0) == .invalidArgument)
        #expect(kind(.jpeg, 101) == .invalidArgument)
        #expect(kind(.jpeg, nil, matte: SIMD3(-1, 0, 0)) == .invalidArgument)
        #expect(kind(.webp, 0) == nil && kind(.jpeg, 1) == nil)
    }

    @Test func writeFollowsTheExtensionUnlessTold() throws {
        let dir = try Fixtures.temporaryDirectory("still")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = PNGWriterTests.renderLike(width: 40, height: 30, channels: 4)
        for (name, format) in [("a.png", "PNG"), ("b.webp", "WEBP"), ("c.jpg", "JPEG"), ("d.jpeg", "JPEG")] {
            let path = dir.appendingPathComponent(name).path
            try StillImageEncoder.write(image, to: path)
            #expect(try PillowDecoder.decode(path: path).format == format, "\(name)")
        }
        let forced = dir.appendingPathComponent("out.bin").path
        try StillImageEncoder.write(image, to: forced, as: .webp)
        #expect(try PillowDecoder.decode(path: forced).format == "WEBP")
    }
}
