import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("PNGReader")
struct PNGReaderTests {
    static let goldenPath = Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path

    @Test func goldenExampleHasTheDocumentedSizeAndMean() throws {
        let image = try PNGReader.read(path: Self.goldenPath)
        #expect(image.width == 256)
        #expect(image.height == 256)
        #expect(image.channels == 3)
        var sums = [0, 0, 0]
        for i in stride(from: 0, to: image.pixels.count, by: 3) {
            for c in 0..<3 { sums[c] += Int(image.pixels[i + c]) }
        }
        let pixelCount = Double(image.width * image.height)
        let mean = sums.map { Double($0) / pixelCount }
        // camera.json stats.mean_rgb_8bit
        let expected = [118.16, 119.49, 116.16]
        for c in 0..<3 { #expect(abs(mean[c] - expected[c]) <= 0.01, "channel \(c) mean \(mean[c])") }
    }

    @Test func grayBecomesRGB() throws {
        let image = try PNGReader.read(bytes: PNGSamples.gray3x2)
        #expect(image.width == 3 && image.height == 2 && image.channels == 3)
        let values: [UInt8] = [0, 50, 100, 150, 200, 255]
        #expect(image.pixels == values.flatMap { [$0, $0, $0] })
    }

    @Test func grayAlphaBecomesRGBA() throws {
        let image = try PNGReader.read(bytes: PNGSamples.grayAlpha2x1)
        #expect(image.width == 2 && image.height == 1 && image.channels == 4)
        #expect(image.pixels == [10, 10, 10, 20, 250, 250, 250, 128])
    }

    @Test func paletteBecomesRGB() throws {
        let image = try PNGReader.read(bytes: PNGSamples.palette2x2)
        #expect(image.channels == 3)
        #expect(image.pixels == [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 8, 7])
    }

    @Test func notAPNGIsBadMagic() {
        #expect(throws: SplatError.self) { try PNGReader.read(bytes: Array("GIF89a-not-png".utf8)) }
        do {
            _ = try PNGReader.read(bytes: Array("GIF89a-not-png".utf8), file: "x.png")
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .badMagic)
            #expect(error.file == "x.png")
        }
    }

    @Test func truncatedDataIsCorrupt() throws {
        let whole = try Array(Data(contentsOf: URL(fileURLWithPath: Self.goldenPath)))
        for cut in [20, 40, whole.count / 2, whole.count - 13] {
            do {
                _ = try PNGReader.read(bytes: Array(whole.prefix(cut)))
                Issue.record("a PNG cut at \(cut) of \(whole.count) bytes was accepted")
            } catch {
                #expect(error.kind == .corrupt, "cut at \(cut): \(error)")
            }
        }
    }

    @Test func pixelBudgetIsCheckedBeforeDecoding() {
        do {
            _ = try PNGReader.read(path: Self.goldenPath, maxPixels: 256 * 255)
            Issue.record("expected too_large")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.file == Self.goldenPath)
        }
    }

    @Test func missingFileIsIO() throws {
        let path = try Fixtures.temporaryDirectory().appendingPathComponent("absent.png").path
        do {
            _ = try PNGReader.read(path: path)
            Issue.record("expected io")
        } catch {
            #expect(error.kind == .io)
            #expect(error.file == path)
        }
    }
}

/// Tiny PNGs written by Pillow, one per colour type the reader has to widen.
enum PNGSamples {
    /// 3×2 gray, 8-bit: 0, 50, 100 / 150, 200, 255.
    static let gray3x2: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x03,
        0x00, 0x00, 0x00, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00, 0xB8, 0x1F, 0x39, 0xC6, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0x64, 0x30, 0x32, 0x62, 0x98, 0x76, 0xE2, 0x3F, 0x00, 0x06, 0x87, 0x02, 0xC3, 0xED, 0xB4, 0x13,
        0xAC, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
    /// 2×1 gray+alpha: (10, α 20), (250, α 128).
    static let grayAlpha2x1: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x01, 0x08, 0x04, 0x00, 0x00, 0x00, 0x5E, 0x2B, 0xB7, 0x01, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41,
        0x54, 0x78, 0x9C, 0x63, 0xE4, 0x12, 0xF9, 0x90, 0x03, 0x00, 0x02, 0xBA, 0x01, 0x7C, 0x15, 0xCC, 0xAD, 0xA3, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
    /// 2×2 2-bit palette: red, green / blue, (9, 8, 7).
    static let palette2x2: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02,
        0x00, 0x00, 0x00, 0x02, 0x02, 0x03, 0x00, 0x00, 0x00, 0x0F, 0xD8, 0xE5, 0xB7, 0x00, 0x00, 0x00, 0x0C, 0x50, 0x4C, 0x54,
        0x45, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x09, 0x08, 0x07, 0xA2, 0xD2, 0x62, 0xC0, 0x00, 0x00, 0x00,
        0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x10, 0x60, 0xD8, 0x00, 0x00, 0x00, 0xE4, 0x00, 0xC1, 0x27, 0xA8, 0xE8,
        0x57, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]
}
