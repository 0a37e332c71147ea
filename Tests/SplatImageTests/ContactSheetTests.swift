import Testing
import SplatCore
@testable import SplatImage

@Suite("ContactSheet")
struct ContactSheetTests {
    static func image(_ seed: Int, width: Int = 10, height: Int = 7, channels: Int = 3) -> ImageBuffer {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { for c in 0..<channels { pixels.append(UInt8((seed * 40 + x * 13 + y * 29 + c * 71) % 256)) } } }
        return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The w×h region of `sheet` at (x0, y0) as an image.
    static func crop(_ sheet: ImageBuffer, x0: Int, y0: Int, width: Int, height: Int) -> ImageBuffer {
        var pixels: [UInt8] = []
        let c = sheet.channels
        for y in y0..<y0 + height {
            let start = (y * sheet.width + x0) * c
            pixels += sheet.pixels[start..<start + width * c]
        }
        return ImageBuffer(width: width, height: height, channels: c, pixels: pixels)
    }

    @Test func tilesAreTheSourcesAndTheRestIsBackground() throws {
        let images = (0..<5).map { Self.image($0) }
        let sheet = try ContactSheet.compose(images, columns: 3, gap: 2, background: [10, 20, 30])
        #expect(sheet.width == 3 * 10 + 2 * 2)
        #expect(sheet.height == 2 * 7 + 2)
        #expect(sheet.channels == 3)
        var covered = Set<Int>()
        for (i, image) in images.enumerated() {
            let x0 = (i % 3) * 12, y0 = (i / 3) * 9
            #expect(Self.crop(sheet, x0: x0, y0: y0, width: 10, height: 7) == image, "tile \(i)")
            for y in y0..<y0 + 7 { for x in x0..<x0 + 10 { covered.insert(y * sheet.width + x) } }
        }
        for p in 0..<sheet.width * sheet.height where !covered.contains(p) {
            #expect(Array(sheet.pixels[p * 3..<p * 3 + 3]) == [10, 20, 30], "pixel \(p)")
        }
    }

    @Test func downscaledTilesEqualTheDownscaledSources() throws {
        let images = (0..<4).map { Self.image($0, channels: 4) }
        let sheet = try ContactSheet.compose(images, columns: 2, downscale: 3, gap: 1)
        // 10×7 by 3 → 4×3 tiles (last column and row are partial blocks).
        #expect(sheet.width == 4 + 1 + 4 && sheet.height == 3 + 1 + 3)
        let layout = try ContactSheet.layout(count: 4, tileWidth: 10, tileHeight: 7, columns: 2, downscale: 3, gap: 1)
        for (i, image) in images.enumerated() {
            let (x0, y0) = layout.origin(ofTile: i)
            let tile = try image.downscaled(by: 3)
            #expect(tile.width == 4 && tile.height == 3)
            #expect(Self.crop(sheet, x0: x0, y0: y0, width: 4, height: 3) == tile, "tile \(i)")
        }
        // The gap column of an RGBA sheet without a background is transparent black.
        #expect(Array(sheet.pixels[4 * 4..<5 * 4]) == [0, 0, 0, 0])
    }

    @Test func downscaleRoundsHalfUpOverThePixelsPresent() throws {
        // Blocks of 2: (0,1) → 0.5 → 1; (2) alone in a partial block → 2.
        let rgb = ImageBuffer(width: 3, height: 1, channels: 3, pixels: [0, 1, 10, 1, 2, 11, 2, 4, 250])
        let small = try rgb.downscaled(by: 2)
        #expect(small == ImageBuffer(width: 2, height: 1, channels: 3, pixels: [1, 2, 11, 2, 4, 250]))
        // 2×2 block: (1 + 2 + 2 + 2) / 4 = 1.75 → 2; (0 + 0 + 0 + 1) / 4 = 0.25 → 0.
        let square = ImageBuffer(width: 2, height: 2, channels: 3, pixels: [1, 0, 9, 2, 0, 9, 2, 0, 9, 2, 1, 9])
        #expect(try square.downscaled(by: 2).pixels == [2, 0, 9])
    }

    @Test func rgbaDownscaleWeightsColourByAlpha() throws {
        let a = ImageBuffer(width: 2, height: 1, channels: 4, pixels: [255, 0, 0, 255, 0, 255, 0, 0])
        #expect(try a.downscaled(by: 2).pixels == [255, 0, 0, 128])
        let b = ImageBuffer(width: 2, height: 1, channels: 4, pixels: [200, 0, 30, 100, 100, 0, 60, 50])
        // alpha (100 + 50)/2 = 75; red (200·100 + 100·50)/150 = 166.7 → 167; blue (3000 + 3000)/150 = 40.
        #expect(try b.downscaled(by: 2).pixels == [167, 0, 40, 75])
        let clear = ImageBuffer(width: 2, height: 1, channels: 4, pixels: [9, 9, 9, 0, 7, 7, 7, 0])
        #expect(try clear.downscaled(by: 2).pixels == [0, 0, 0, 0])
    }

    @Test func columnsAreCappedAtTheImageCount() throws {
        let sheet = try ContactSheet.compose([Self.image(0), Self.image(1)], columns: 5, gap: 3)
        #expect(sheet.width == 23 && sheet.height == 7)
        let rgbaBackground = try ContactSheet.compose([Self.image(0, channels: 4), Self.image(1, channels: 4)], columns: 1, gap: 1, background: [1, 2, 3])
        #expect(Array(rgbaBackground.pixels[7 * 10 * 4..<7 * 10 * 4 + 4]) == [1, 2, 3, 255])
    }

    @Test func badRequestsGiveTypedErrors() {
        func kind(_ body: () throws(SplatError) -> ImageBuffer) -> SplatErrorKind? {
            do { _ = try body(); return nil } catch { return error.kind }
        }
        let a = Self.image(0)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([], columns: 1) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a, Self.image(1, width: 9)], columns: 2) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a, Self.image(1, channels: 4)], columns: 2) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a], columns: 0) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a], columns: 1, downscale: 0) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a], columns: 1, gap: -1) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a], columns: 1, background: [1, 2, 3, 4]) } == .invalidArgument)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a, a], columns: 2, gap: Int.max / 2) } == .tooLarge)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a, a], columns: 2, maxPixels: 139) } == .tooLarge)
        #expect(kind { () throws(SplatError) in try ContactSheet.compose([a, a], columns: 2, maxPixels: 140) } == nil)
    }
}
