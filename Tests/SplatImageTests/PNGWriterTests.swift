import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("PNGWriter")
struct PNGWriterTests {
    /// Pseudo-random pixels (xorshift), so every value and every alpha, including 0, occurs.
    static func noise(width: Int, height: Int, channels: Int, seed: UInt64 = 0x9E3779B97F4A7C15) -> ImageBuffer {
        ImageBuffer(width: width, height: height, channels: channels, pixels: noiseBytes(width * height * channels, seed: seed))
    }

    static func noiseBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for i in bytes.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        return bytes
    }

    /// Smooth gradients with a little noise and some transparent areas: compressible like a
    /// render, so filters and matches matter, yet every row differs.
    static func renderLike(width: Int, height: Int, channels: Int, seed: UInt64 = 1) -> ImageBuffer {
        let grain = noiseBytes(width * height, seed: seed | 1)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let p = (y * width + x) * channels, n = Int(grain[y * width + x] & 7)
                let inside = (x - width / 2) * (x - width / 2) + (y - height / 2) * (y - height / 2) < width * height / 5
                pixels[p] = UInt8((x * 255 / max(1, width - 1) + n) & 0xFF)
                pixels[p + 1] = UInt8((y * 200 / max(1, height - 1) + n / 2) & 0xFF)
                pixels[p + 2] = UInt8(((x + y) / 3 + n) & 0xFF)
                if channels == 4 { pixels[p + 3] = inside ? UInt8(255 - n) : 0 }
            }
        }
        return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    static func bigEndian32(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    @Test(arguments: [3, 4])
    func roundTripKeepsEveryPixel(channels: Int) throws {
        let image = Self.noise(width: 37, height: 23, channels: channels)
        let bytes = try PNGWriter.encode(image)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(bytes[12..<16]) == Array("IHDR".utf8))
        #expect(Self.bigEndian32(bytes, at: 16) == 37)
        #expect(Self.bigEndian32(bytes, at: 20) == 23)
        #expect(bytes[24] == 8) // bit depth
        #expect(bytes[25] == (channels == 4 ? 6 : 2)) // colour type RGBA / RGB
        #expect(Array(bytes.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        #expect(try PNGReader.read(bytes: bytes) == image)
    }

    /// The encoder with small bands, so small images (quick in debug builds) make many bands.
    static func encodeInBands(_ image: ImageBuffer, bandBytes: Int, level: Int = PNGWriter.defaultCompressionLevel,
                              threads: Int? = nil) throws -> [UInt8] {
        try PNGWriter.encode(image, level: level, threads: threads, bandTargetBytes: bandBytes, cancellation: .none)
    }

    /// Many bands, odd widths, rows longer than a band, single rows or columns, and the real band
    /// size: libpng, Pillow and zlib all read back every pixel, from one IDAT per band.
    @Test(arguments: [(3, 61, 101, 3000), (4, 70, 80, 2000), (4, 1001, 3, 1000), (3, 1, 500, 100), (4, 500, 1, 100),
                      (4, 1, 1, 100), (4, 300, 300, PNGImageData.bandTargetBytes)])
    func bandedStreamsDecodeExactlyEverywhere(channels: Int, width: Int, height: Int, bandBytes: Int) throws {
        let image = Self.renderLike(width: width, height: height, channels: channels, seed: UInt64(width))
        let bytes = try Self.encodeInBands(image, bandBytes: bandBytes)
        #expect(try PNGReader.read(bytes: bytes) == image)
        let pillow = try PillowDecoder.decode(bytes, suffix: "png")
        #expect(pillow.format == "PNG" && pillow.mode == (channels == 4 ? "RGBA" : "RGB"))
        #expect(pillow.image == image)
        let inspector = try PNGStreamInspector(bytes)
        #expect(inspector.chunks.allSatisfy { $0.crcMatches })
        #expect(inspector.types.first == "IHDR" && inspector.types[1] == "sRGB" && inspector.types.last == "IEND")
        let rowBytes = width * channels, rowsPerBand = PNGImageData.rowsPerBand(rowBytes: rowBytes, height: height, bandTargetBytes: bandBytes)
        #expect(inspector.types.filter { $0 == "IDAT" }.count == (height + rowsPerBand - 1) / rowsPerBand + 2)
        // zlib checks the joined stream's structure and its Adler-32.
        #expect(try inspector.inflated(expectedCount: (rowBytes + 1) * height).count == (rowBytes + 1) * height)
    }

    @Test(arguments: [0, 1, 4, 6, 9, 12])
    func everyLevelDecodesExactly(level: Int) throws {
        let image = Self.renderLike(width: 60, height: 120, channels: 4, seed: UInt64(level))
        let bytes = try Self.encodeInBands(image, bandBytes: 2500, level: level)
        #expect(try PNGReader.read(bytes: bytes) == image)
        #expect(try PillowDecoder.decode(bytes, suffix: "png").image == image)
    }

    @Test func bandsAreEvenAndNearTheTarget() {
        let target = PNGImageData.bandTargetBytes
        #expect(PNGImageData.rowsPerBand(rowBytes: 1024, height: 256, bandTargetBytes: target) == 256) // 256² RGBA: one band
        #expect(PNGImageData.rowsPerBand(rowBytes: 2048, height: 512, bandTargetBytes: target) == 128) // 512²: four
        #expect(PNGImageData.rowsPerBand(rowBytes: 4096, height: 1024, bandTargetBytes: target) == 64) // 1024²: sixteen
        #expect(PNGImageData.rowsPerBand(rowBytes: 65536, height: 16384, bandTargetBytes: target) == 4) // 16384²: 4096 bands
        #expect(PNGImageData.rowsPerBand(rowBytes: 1_000_000, height: 3, bandTargetBytes: target) == 1) // rows over the target
        #expect(PNGImageData.rowsPerBand(rowBytes: 3, height: 1, bandTargetBytes: target) == 1)
    }

    @Test func bytesDoNotDependOnTheThreadCount() throws {
        let image = Self.renderLike(width: 128, height: 140, channels: 4)
        let all = try Self.encodeInBands(image, bandBytes: 2048)
        #expect(try Self.encodeInBands(image, bandBytes: 2048, threads: 1) == all)
        #expect(try Self.encodeInBands(image, bandBytes: 2048, threads: 2) == all)
        #expect(try Self.encodeInBands(image, bandBytes: 2048, threads: 7) == all)
        #expect(try PNGWriter.encode(image, threads: 1) == PNGWriter.encode(image))
    }

    /// The filter libpng's heuristic picks for row `y`, computed the plain way: every filter's
    /// bytes summed as signed magnitudes, the smallest sum winning, ties to the lower type.
    static func referenceFilterType(_ image: ImageBuffer, row y: Int) -> UInt8 {
        let rowBytes = image.width * image.channels, bpp = image.channels
        func at(_ row: Int, _ i: Int) -> Int { row < 0 || i < 0 ? 0 : Int(image.pixels[row * rowBytes + i]) }
        var sums = [Int](repeating: 0, count: 5)
        for i in 0..<rowBytes {
            let x = at(y, i), a = at(y, i - bpp), b = at(y - 1, i), c = at(y - 1, i - bpp)
            let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            let paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            for (type, prediction) in [0, a, b, (a + b) / 2, paeth].enumerated() {
                let byte = Int8(truncatingIfNeeded: x - prediction)
                sums[type] += abs(Int(byte))
            }
        }
        return UInt8(sums.indices.min { sums[$0] < sums[$1] }!)
    }

    /// Rows built so that each filter type is the best one, then a render-like image and noise:
    /// the encoder's choice matches the plain reference on every row.
    @Test func heuristicPicksTheSmallestFilter() throws {
        let width = 48, height = 8
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        func set(_ y: Int, _ x: Int, _ value: Int) { for c in 0..<3 { pixels[(y * width + x) * 3 + c] = UInt8(value & 0xFF) } }
        func get(_ y: Int, _ x: Int) -> Int { x < 0 || y < 0 ? 0 : Int(pixels[(y * width + x) * 3]) }
        for x in 0..<width {
            set(0, x, x * 3)                 // a ramp: Sub leaves 3s (Paeth ties, the lower type wins)
            set(1, x, x * 3 + 100)           // the ramp again, 100 higher: Sub leaves 3s, Up 100s
            set(2, x, (x * 37) % 251)        // scrambled…
            set(3, x, (x * 37) % 251)        // …and repeated: Up leaves zeros
            set(4, x, (x % 2) * 4)           // 0, 4, 0, 4 under scrambled: None (2 on average) beats Sub (4)
        }
        for x in 0..<width { set(5, x, (get(5, x - 1) + get(4, x)) / 2) }   // exactly Average's prediction
        for x in 0..<width { set(6, x, (x * 37) % 251) }
        for x in 0..<width {
            // Paeth's prediction over a scrambled row, every fifth pixel off by 90: Paeth leaves
            // mostly zeros, while Sub and Up each match only where Paeth picked their neighbour.
            let a = get(7, x - 1), b = get(6, x), c = get(6, x - 1)
            let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
            set(7, x, (pa <= pb && pa <= pc ? a : pb <= pc ? b : c) + (x % 5 == 0 ? 90 : 0))
        }
        let crafted = ImageBuffer(width: width, height: height, channels: 3, pixels: pixels)
        let cases = [crafted, Self.renderLike(width: 90, height: 40, channels: 4), Self.noise(width: 33, height: 9, channels: 3, seed: 9)]
        for image in cases {
            let bytes = try PNGWriter.encode(image)
            #expect(try PNGReader.read(bytes: bytes) == image)
            let types = try PNGStreamInspector(bytes).filterTypes(rowBytes: image.width * image.channels, height: image.height)
            let reference = (0..<image.height).map { Self.referenceFilterType(image, row: $0) }
            #expect(types == reference)
            if image == crafted { #expect(types == [1, 1, reference[2], 2, 0, 3, reference[6], 4], "\(types)") }
        }
    }

    @Test func fastModeRoundTripsToo() throws {
        let image = Self.noise(width: 64, height: 3, channels: 4, seed: 7)
        #expect(try PNGReader.read(bytes: PNGWriter.encode(image, fast: true)) == image)
    }

    @Test func goldenSurvivesReencoding() throws {
        let path = Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path
        let golden = try PNGReader.read(path: path)
        let bytes = try PNGWriter.encode(golden)
        #expect(try PNGReader.read(bytes: bytes) == golden)
        #expect(try PillowDecoder.decode(bytes, suffix: "png").image == golden)
    }

    @Test func incompressibleImageStaysNearItsRawSize() throws {
        // Noise does not compress: libdeflate falls back to stored blocks, a few bytes per 64 KiB,
        // plus the filter byte of each row and each band's chunk and sync marker.
        let image = Self.noise(width: 100, height: 200, channels: 4, seed: 3)
        let bytes = try Self.encodeInBands(image, bandBytes: 8000)
        #expect(bytes.count > image.pixels.count)
        #expect(bytes.count < image.pixels.count + 200 + 11 * 20 + 200)
        #expect(try PNGReader.read(bytes: bytes) == image)
    }

    @Test func badArgumentsGiveTypedErrors() {
        func kind(_ image: ImageBuffer, level: Int? = nil, threads: Int? = nil) -> SplatErrorKind? {
            do { _ = try PNGWriter.encode(image, compressionLevel: level, threads: threads); return nil } catch { return error.kind }
        }
        let small = Self.noise(width: 2, height: 2, channels: 3)
        #expect(kind(ImageBuffer(width: 0, height: 4, channels: 3)) == .invalidArgument)
        #expect(kind(small, level: -1) == .invalidArgument)
        #expect(kind(small, level: 13) == .invalidArgument)
        #expect(kind(small, threads: 0) == .invalidArgument)
        var damaged = small
        damaged.pixels.removeLast()
        #expect(kind(damaged) == .invalidArgument)
        #expect(kind(small) == nil)
    }

    @Test func writeCreatesAReadableFileAndOverwrites() throws {
        let dir = try Fixtures.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("out.png").path
        let first = Self.noise(width: 5, height: 4, channels: 3, seed: 1)
        let second = Self.noise(width: 6, height: 2, channels: 4, seed: 2)
        try PNGWriter.write(first, to: path)
        #expect(try PNGReader.read(path: path) == first)
        try PNGWriter.write(second, to: path)
        #expect(try PNGReader.read(path: path) == second)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.png"])
    }

    @Test func missingFolderFailsWithIOAndLeavesNothing() throws {
        let dir = try Fixtures.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("no-such-folder/out.png").path
        do {
            try PNGWriter.write(Self.noise(width: 2, height: 2, channels: 3), to: path)
            Issue.record("expected io")
        } catch {
            #expect(error.kind == .io)
            #expect(error.file == path)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func failedWritesLeaveTheOldFileIntact() throws {
        let dir = try Fixtures.temporaryDirectory("png")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("keep.png").path
        let old = Self.noise(width: 3, height: 3, channels: 3, seed: 11)
        try PNGWriter.write(old, to: path)
        let oldBytes = try Data(contentsOf: URL(fileURLWithPath: path))

        // Encoding fails: nothing is touched.
        do {
            try PNGWriter.write(ImageBuffer(width: 0, height: 0, channels: 4), to: path)
            Issue.record("expected invalid_argument")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.file == path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == oldBytes)

        // The rename fails (destination is a non-empty folder): the temporary file is removed.
        let folder = dir.appendingPathComponent("occupied")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("inside"))
        do {
            try PNGWriter.write(old, to: folder.path)
            Issue.record("expected io")
        } catch {
            #expect(error.kind == .io)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["keep.png", "occupied"])
        #expect(try Data(contentsOf: folder.appendingPathComponent("inside")) == Data([1, 2, 3]))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == oldBytes)
    }
}
