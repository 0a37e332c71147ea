import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatImage

@Suite("PNGWriter")
struct PNGWriterTests {
    /// Pseudo-random pixels (xorshift), so every value and every alpha, including 0, occurs.
    static func noise(width: Int, height: Int, channels: Int, seed: UInt64 = 0x9E3779B97F4A7C15) -> ImageBuffer {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for i in pixels.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            pixels[i] = UInt8(truncatingIfNeeded: state >> 24)
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
        let back = try PNGReader.read(bytes: bytes)
        #expect(back == image)
    }

    @Test func fastModeRoundTripsToo() throws {
        let image = Self.noise(width: 64, height: 3, channels: 4, seed: 7)
        #expect(try PNGReader.read(bytes: PNGWriter.encode(image, fast: true)) == image)
    }

    @Test func goldenSurvivesReencoding() throws {
        let path = Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path
        let golden = try PNGReader.read(path: path)
        let again = try PNGReader.read(bytes: PNGWriter.encode(golden))
        #expect(again == golden)
        #expect(ImageComparison.compare(again, golden).psnr == .infinity)
    }

    @Test func incompressibleImageStillFits() throws {
        // Noise does not compress: the output must still fit the worst-case bound.
        let image = Self.noise(width: 300, height: 200, channels: 4, seed: 3)
        let bytes = try PNGWriter.encode(image)
        #expect(bytes.count > image.pixels.count)
        #expect(bytes.count <= PNGWriter.worstCaseSize(rowBytes: 1200, height: 200))
        #expect(try PNGReader.read(bytes: bytes) == image)
    }

    @Test func emptyImageIsInvalidArgument() {
        do {
            _ = try PNGWriter.encode(ImageBuffer(width: 0, height: 4, channels: 3))
            Issue.record("expected invalid_argument")
        } catch {
            #expect(error.kind == .invalidArgument)
        }
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
