import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// `SPZDecoder.decode(file:)` reads a v4 file's streams a slice at a time instead of holding the
/// whole file. It must give what decoding the file's bytes gives — the same scene, or an error of
/// the same kind — and a file that shrinks under it is `truncated`.
@Suite struct SPZFileStreamingTests {
    /// Every NGSP file among the spec vectors, the corpus (with its reference re-encodings) and
    /// the regression inputs.
    static let files: [String] = {
        let folders = [Fixtures.vectors.path, Fixtures.corpus.appendingPathComponent("spz").path,
                       Fixtures.corpus.appendingPathComponent("spz/reference").path,
                       URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions").path]
        var found: [String] = []
        for folder in folders {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names.sorted() where name.hasSuffix(".spz") {
                let path = (folder as NSString).appendingPathComponent(name)
                guard let head = FileHandle(forReadingAtPath: path)?.readData(ofLength: 4), head.elementsEqual(Array("NGSP".utf8)) else {
                    continue
                }
                found.append(path)
            }
        }
        return found
    }()

    static func fromFile(_ path: String, sh: SHStorage) throws(SplatError) -> DecodedScene {
        let file = try RegularFile(path: path, maxBytes: DecodeLimits().inputByteLimit)
        guard let decoded = try SPZDecoder.decode(file: file, limits: DecodeLimits(), sh: sh) else {
            throw SplatError(.badMagic, "not NGSP", file: path)
        }
        return decoded
    }

    static func fromBytes(_ path: String, sh: SHStorage) throws(SplatError) -> DecodedScene {
        let input = try InputBytes(path: path)
        return try SPZDecoder.decode(input.bytes, file: path, limits: DecodeLimits(), sh: sh)
    }

    @Test func theTestSetHasFilesOfEveryKind() throws {
        #expect(Self.files.count >= 20, "\(Self.files.count) NGSP files")
    }

    /// A scene whose SH stream compresses to several slices (random codes), with every band
    /// kept (SH converted in place while it inflates) and as codes.
    @Test(arguments: [SHStorage.float32, .quantized])
    func aStreamOfSeveralSlicesGivesWhatItsBytesGive(_ sh: SHStorage) throws {
        let folder = try Fixtures.temporaryDirectory("spz-slices")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("random.spz").path
        let scene = SPZEncoderTests.syntheticScene(count: 120_000, degree: 3)
        try Data(try SPZEncoder.encode(scene, options: .init(version: 4, compressionLevel: 1))).write(to: URL(fileURLWithPath: path))
        let file = try RegularFile(path: path, maxBytes: 1 << 30)
        let header = try file.readPrefix(4096).withBytes { (bytes) throws(SplatError) in
            try SPZHeader.parseV4(bytes, file: path, fileSize: file.size)
        }
        let sliced = try #require(header.streams.first { $0.attribute == .sh })
        #expect(sliced.compressedSize > ZstdCodec.pieceBytes, "the SH stream is \(sliced.compressedSize) bytes")
        Self.expectSame(try Self.fromBytes(path, sh: sh), try Self.fromFile(path, sh: sh), "random.spz")
    }

    @Test(arguments: [SHStorage.float32, .quantized])
    func slicesGiveWhatTheBytesGive(_ sh: SHStorage) {
        var decodedCount = 0, refusedCount = 0
        for path in Self.files {
            let name = (path as NSString).lastPathComponent
            let memory = Result { () throws(SplatError) in try Self.fromBytes(path, sh: sh) }
            let streamed = Result { () throws(SplatError) in try Self.fromFile(path, sh: sh) }
            switch (memory, streamed) {
            case (.success(let a), .success(let b)):
                decodedCount += 1
                Self.expectSame(a, b, name)
            case (.failure(let a), .failure(let b)):
                refusedCount += 1
                #expect(a.kind == b.kind, "\(name): \(a) against \(b)")
                #expect(b.file == path, "\(name): \(b)")
            default:
                Issue.record("\(name): from bytes \(memory), from the file \(streamed)")
            }
        }
        // Both outcomes occur, so neither branch is vacuous.
        #expect(decodedCount >= 11 && refusedCount >= 10, "decoded \(decodedCount), refused \(refusedCount)")
    }

    static func expectSame(_ a: DecodedScene, _ b: DecodedScene, _ name: String) {
        #expect(a.scene.count == b.scene.count && a.scene.shDegree == b.scene.shDegree, "\(name)")
        #expect(a.header.count == b.header.count && a.header.shDegree == b.header.shDegree, "\(name)")
        #expect(a.scene.warnings == b.scene.warnings, "\(name)")
        #expect(a.scene.declaredFrame == b.scene.declaredFrame && a.scene.model == b.scene.model, "\(name)")
        guard a.scene.count == b.scene.count else { return }
        for column in SplatScene.Column.allCases {
            #expect(memcmp(a.scene.columnBase(column), b.scene.columnBase(column), 4 * a.scene.count) == 0, "\(name): \(column)")
        }
        #expect(a.scene.sh.count == b.scene.sh.count, "\(name)")
        if let x = a.scene.sh.baseAddress, let y = b.scene.sh.baseAddress, a.scene.sh.count == b.scene.sh.count {
            #expect(memcmp(x, y, 4 * a.scene.sh.count) == 0, "\(name): SH")
        }
        #expect((a.scene.quantizedSH == nil) == (b.scene.quantizedSH == nil), "\(name)")
        if let x = a.scene.quantizedSH, let y = b.scene.quantizedSH {
            #expect(x.stride == y.stride && memcmp(x.codes, y.codes, x.stride * a.scene.count) == 0, "\(name): SH codes")
        }
    }

    /// The file is opened (its size taken), then cut on disk before the streams are read: the
    /// slices past the new end are a `truncated` error naming the file, never a signal.
    @Test func aFileCutUnderTheDecodeIsTruncated() throws {
        let folder = try Fixtures.temporaryDirectory("spz-cut")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("biker.spz").path
        try FileManager.default.copyItem(atPath: Fixtures.corpusFile("spz/biker.spz"), toPath: path)
        let file = try RegularFile(path: path, maxBytes: 1 << 30)
        #expect(truncate(path, off_t(file.size / 2)) == 0)
        let error = #expect(throws: SplatError.self) { try SPZDecoder.decode(file: file, limits: DecodeLimits()) }
        #expect(error?.kind == .truncated, "\(String(describing: error))")
        #expect(error?.file == path)
    }

    /// A path (which `SplatFile` decodes by slices when it is NGSP) gives what its bytes give.
    @Test func splatFileDecodesAPathAsItsBytes() throws {
        let path = Fixtures.corpusFile("spz/biker.spz")
        let viaPath = try SplatFile.decode(path: path)
        let viaBytes = try SplatFile.decode(try InputBytes(path: path))
        Self.expectSame(viaBytes, viaPath, "biker.spz")
    }
}
