import Foundation
import Testing
import SplatCore
@testable import SplatFormats
import TestSupport

@Suite("PrefixHeaderReader")
struct PrefixHeaderReaderTests {
    static func read(_ bytes: [UInt8], first count: Int, total: Int?, format: SplatFormat? = nil) throws(SplatError) -> PrefixHeaderReader.Outcome {
        try withTestBytes(Array(bytes.prefix(count))) { raw throws(SplatError) in
            try PrefixHeaderReader.read(prefix: raw, totalBytes: total, name: "upload", format: format, limits: DecodeLimits())
        }
    }

    static func fullHeader(_ bytes: [UInt8], format: SplatFormat? = nil) throws -> SceneHeader {
        try bytes.withUnsafeBytes { raw in
            try SplatFile.readHeader(InputBytes(copying: raw, name: "upload"), format: format, limits: DecodeLimits())
        }
    }

    /// The smallest prefix that gives the header, and that header.
    static func earliest(_ bytes: [UInt8], format: SplatFormat? = nil) throws -> (Int, SceneHeader)? {
        for count in stride(from: 1, to: bytes.count, by: 1) {
            if case .header(let header) = try read(bytes, first: count, total: bytes.count, format: format) { return (count, header) }
        }
        return nil
    }

    @Test("a PLY's header comes once end_header is in, equal to the whole file's")
    func ply() throws {
        let bytes = try readFixtureBytes(Fixtures.corpusFile("ply/loadersgl-train-1000.ply"))
        let (count, header) = try #require(try Self.earliest(bytes))
        let headerBytes = try #require(Data(bytes).range(of: Data("end_header\n".utf8))).upperBound
        #expect(count == max(PrefixHeaderReader.sniffBytes, headerBytes))
        #expect(header == (try Self.fullHeader(bytes)))
        #expect(header.count == 1000)
    }

    @Test("SPZ v4 through its TOC and legacy SPZ from its first inflated bytes give the whole file's header")
    func spz() throws {
        for name in ["ply/reference/gs3d-pr477-lod3_tile_0.v4.spz", "ply/reference/gs3d-pr477-lod3_tile_0.v3.spz"] {
            let bytes = try readFixtureBytes(Fixtures.corpusFile(name))
            let (count, header) = try #require(try Self.earliest(bytes), "\(name)")
            #expect(count <= PrefixHeaderReader.sniffBytes, "\(name): \(count) bytes")
            #expect(header == (try Self.fullHeader(bytes)), "\(name)")
        }
        // Without the total size a v4 header cannot be checked against it: the whole file decides.
        let v4 = try readFixtureBytes(Fixtures.corpusFile("ply/reference/gs3d-pr477-lod3_tile_0.v4.spz"))
        guard case .whole = try Self.read(v4, first: 8192, total: nil) else { Issue.record("v4 without a size"); return }
    }

    @Test(".splat with its format named has its header from its size alone")
    func dotSplat() throws {
        let bytes = try readFixtureBytes(Fixtures.corpusFile("splat/splat-transform-minimal.splat"))
        guard case .header(let header) = try Self.read(bytes, first: 0, total: bytes.count, format: .splat) else {
            Issue.record("no header from the size"); return
        }
        #expect(header == (try Self.fullHeader(bytes, format: .splat)))
        guard case .whole = try Self.read(bytes, first: 0, total: nil, format: .splat) else { Issue.record("unknown size"); return }
    }

    @Test("SOG is read whole; a short prefix asks for more; bytes without a signature are refused at once")
    func others() throws {
        let sog = try readFixtureBytes(Fixtures.corpusFile("sog/monkey_0001.sog"))
        guard case .whole = try Self.read(sog, first: 8192, total: sog.count) else { Issue.record("SOG"); return }
        let ply = try readFixtureBytes(Fixtures.corpusFile("ply/loadersgl-train-1000.ply"))
        guard case .more = try Self.read(ply, first: 100, total: ply.count) else { Issue.record("short prefix"); return }
        let garbage = [UInt8](repeating: 0x41, count: 5000)
        #expect(thrownKind { () throws(SplatError) in try Self.read(garbage, first: 5000, total: 1 << 20) } == .badMagic)
    }

    @Test("an oversize PLY header is read from its first bytes, so the ceiling can refuse it early")
    func oversize() throws {
        let text = "ply\nformat binary_little_endian 1.0\nelement vertex 50000000\n"
            + ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
                .map { "property float \($0)\n" }.joined() + "end_header\n"
        let bytes = Array(text.utf8) + [UInt8](repeating: 0, count: 8192)
        guard case .header(let header) = try Self.read(bytes, first: 8192, total: 4 << 30) else { Issue.record("no header"); return }
        #expect(header.count == 50_000_000)
        #expect(DecodeLimits().sizeVerdict(count: header.count, fileDegree: header.shDegree).fitsServiceCeiling == false)
    }
}

/// `SplatFile.readHeader(path:)` reads SPZ and `.splat` headers from the file's first 64 KiB;
/// whatever the answer — header or error — it is the one the whole file gives.
@Suite struct FileHeaderPrefixTests {
    static func answer(_ body: () throws(SplatError) -> SceneHeader) -> Result<SceneHeader, SplatError> { Result(catching: body) }

    static func paths() throws -> [String] {
        let vectors = try FileManager.default.contentsOfDirectory(atPath: Fixtures.vectors.path)
            .filter { $0.hasSuffix(".spz") }.map { Fixtures.vector($0) }
        let corpus = try FileManager.default.contentsOfDirectory(atPath: Fixtures.corpus.appendingPathComponent("spz").path)
            .filter { $0.hasSuffix(".spz") }.map { Fixtures.corpusFile("spz/" + $0) }
        let splat = try FileManager.default.contentsOfDirectory(atPath: Fixtures.corpus.appendingPathComponent("splat").path)
            .filter { $0.hasSuffix(".splat") }.map { Fixtures.corpusFile("splat/" + $0) }
        return vectors.sorted() + corpus.sorted() + splat.sorted()
    }

    @Test func prefixAnswersEqualTheWholeFiles() throws {
        let directory = try Fixtures.temporaryDirectory("prefix-header")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Files longer than the prefix, as v4 and legacy, whole and cut short.
        let fruit = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
        var paths = try Self.paths()
        for version in [3, 4] {
            let bytes = try SPZEncoder.encode(fruit, options: SPZEncoder.Options(version: version))
            #expect(bytes.count > SplatFile.prefixHeaderBytes)
            for (tag, body) in [("whole", bytes), ("cut", Array(bytes.prefix(bytes.count - 1000)))] {
                let path = directory.appendingPathComponent("fruit-v\(version)-\(tag).spz").path
                try Data(body).write(to: URL(fileURLWithPath: path))
                paths.append(path)
            }
        }
        #expect(paths.count > 25)
        for path in paths {
            let fromPath = Self.answer { () throws(SplatError) in try SplatFile.readHeader(path: path) }
            let whole = try Data(contentsOf: URL(fileURLWithPath: path))
            let input = whole.withUnsafeBytes { InputBytes(copying: $0, name: path) }
            let fromBytes = Self.answer { () throws(SplatError) in try SplatFile.readHeader(input) }
            switch (fromPath, fromBytes) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(path)")
            case (.failure(let a), .failure(let b)): #expect(a.kind == b.kind && a.message == b.message, "\(path): \(a) vs \(b)")
            default: Issue.record("\(path): \(fromPath) vs \(fromBytes)")
            }
        }
    }
}
