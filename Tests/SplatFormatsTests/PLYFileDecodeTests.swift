import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Binary PLY rows read from the file in slices (`PLYDecoder.decode(_: RegularFile, …)`, what
/// `SplatFile.decode(path:)` does for PLY) decode to exactly the scene the in-memory decoder
/// makes of the same bytes, refuse the same inputs with the same errors, and turn a file that
/// shrinks after it was opened into `truncated`.
@Suite("PLY decoded from the file in slices")
struct PLYFileDecodeTests {
    /// Every value of two scenes, bit for bit (NaN payloads included).
    static func differences(_ a: SplatScene, _ b: SplatScene) -> [String] {
        var out: [String] = []
        if a.count != b.count || a.shDegree != b.shDegree { return ["count/degree \(a.count)/\(a.shDegree) vs \(b.count)/\(b.shDegree)"] }
        for c in SplatScene.Column.allCases {
            let x = a.columnBase(c), y = b.columnBase(c)
            if let i = (0..<a.count).first(where: { x[$0].bitPattern != y[$0].bitPattern }) {
                out.append("\(c) row \(i): \(x[i]) vs \(y[i])")
            }
        }
        if let i = a.sh.indices.first(where: { a.sh[$0].bitPattern != b.sh[$0].bitPattern }) {
            out.append("sh float \(i): \(a.sh[i]) vs \(b.sh[i])")
        }
        if a.warnings != b.warnings { out.append("warnings \(a.warnings) vs \(b.warnings)") }
        if a.model != b.model { out.append("model \(a.model) vs \(b.model)") }
        return out
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = try Fixtures.temporaryDirectory("ply-file").appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func streamed(_ path: String, limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene? {
        try PLYDecoder.decode(try RegularFile(path: path, maxBytes: limits.inputByteLimit), limits: limits)
    }

    static func inMemory(_ path: String, limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        try SplatFile.decode(try InputBytes(path: path, limits: limits), limits: limits)
    }

    static var corpusAndVectorPLYs: [String] {
        let corpus = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.corpus.appendingPathComponent("ply").path)) ?? []
        return corpus.filter { $0.hasSuffix(".ply") }.sorted().map { Fixtures.corpusFile("ply/\($0)") }
            + ["tiny-3dgs-le.ply", "tiny-3dgs-be.ply", "tiny-3dgs-ascii.ply"].map(Fixtures.vector)
    }

    @Test("corpus and vector PLYs: the sliced decode equals the in-memory one", arguments: corpusAndVectorPLYs)
    func corpusFiles(path: String) throws {
        let whole = try Self.inMemory(path)
        let viaPath = try SplatFile.decode(path: path)
        #expect(Self.differences(viaPath.scene, whole.scene).isEmpty, "\(Self.differences(viaPath.scene, whole.scene))")
        #expect(viaPath.header.warnings == whole.header.warnings)
        #expect(viaPath.header.details == whole.header.details)
        let isASCII = whole.header.details["ply_format"] == "ascii"
        let isCompressed = whole.header.format == .compressedPLY
        // Binary plain PLY takes the sliced path; ASCII and compressed PLY are read whole.
        #expect((try Self.streamed(path) != nil) == !(isASCII || isCompressed), "\(path)")
        #expect(try SplatFile.readHeader(path: path) == (try SplatFile.readHeader(try InputBytes(path: path))))
    }

    /// 10,001 SH3 rows: three chunks, the last one short, in every binary layout the fast and
    /// the general transposes handle.
    @Test("several chunks, each binary layout", arguments: [
        ("float", PLYTestFile.Encoding.littleEndian), ("float", .bigEndian), ("double", .littleEndian), ("short", .littleEndian),
    ])
    func chunks(type: String, encoding: PLYTestFile.Encoding) throws {
        var ply = PLYTestFile(encoding: encoding)
        ply.elements = [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 15), count: 10_001, type: type)]
        let path = try Self.write(ply.bytes, "chunks-\(type)-\(encoding.rawValue).ply")
        let streamed = try #require(try Self.streamed(path))
        let whole = try Self.inMemory(path)
        #expect(streamed.scene.count == 10_001 && streamed.scene.shDegree == 3)
        #expect(Self.differences(streamed.scene, whole.scene).isEmpty, "\(Self.differences(streamed.scene, whole.scene))")
        // Values land in the right rows: the last row's x is 1.5 + 10,000 in every layout but short.
        if type != "short" { #expect(streamed.scene.columnBase(.x)[10_000] == 10_001.5) }
        // maxShDegree keeps the first coefficients, as in memory.
        var limits = DecodeLimits()
        limits.maxShDegree = 1
        let cut = try #require(try Self.streamed(path, limits: limits))
        #expect(Self.differences(cut.scene, try Self.inMemory(path, limits: limits).scene).isEmpty)
    }

    /// The finite check runs inside the decode, chunk by chunk: a NaN or an infinity in any
    /// chunk must still be found (dropped with a warning, or refused under `strict`).
    @Test("non-finite values are found in any chunk, sliced or in memory")
    func nonFinite() throws {
        let names = PLYTestFile.gaussianNames(dim: 3)
        var vertex = PLYTestFile.gaussianVertex(names: names, count: 10_001)
        vertex.rows[5_000][names.firstIndex(of: "x")!] = .scalar(.nan)
        vertex.rows[9_999][names.firstIndex(of: "f_rest_7")!] = .scalar(.infinity)
        var ply = PLYTestFile()
        ply.elements = [vertex]
        let path = try Self.write(ply.bytes, "non-finite.ply")
        let viaPath = try SplatFile.decode(path: path)
        #expect(viaPath.scene.count == 9_999)
        #expect(viaPath.scene.warnings.contains { $0.hasPrefix("non_finite: dropped 2 splat(s)") }, "\(viaPath.scene.warnings)")
        #expect(Self.differences(viaPath.scene, try Self.inMemory(path).scene).isEmpty)
        var strict = DecodeLimits()
        strict.strict = true
        let refused = thrownKindAndMessage { () throws(SplatError) in try SplatFile.decode(path: path, limits: strict) }
        #expect(refused?.kind == .nonFinite && refused?.field == "splat 5000", "\(String(describing: refused))")
    }

    @Test("elements before the vertex: fixed rows are skipped by offset, list rows send the file to the whole read")
    func elementsBefore() throws {
        let vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 5)
        var fixed = PLYTestFile()
        fixed.elements = [PLYTestFile.Element(name: "camera", properties: [.init("k", "double")], rows: [[.scalar(1)], [.scalar(2)]]), vertex]
        let fixedPath = try Self.write(fixed.bytes, "fixed-before.ply")
        let sliced = try #require(try Self.streamed(fixedPath))
        #expect(Self.differences(sliced.scene, try Self.inMemory(fixedPath).scene).isEmpty)
        #expect(sliced.scene.columnBase(.x)[4] == 5.5)

        var listed = PLYTestFile()
        listed.elements = [PLYTestFile.Element(name: "face", properties: [.init("i", "int", listCount: "uchar")],
                                               rows: [[.list([1, 2, 3])], [.list([])]]), vertex]
        let listedPath = try Self.write(listed.bytes, "list-before.ply")
        #expect(try Self.streamed(listedPath) == nil)
        let viaPath = try SplatFile.decode(path: listedPath)
        #expect(Self.differences(viaPath.scene, try Self.inMemory(listedPath).scene).isEmpty)
        #expect(viaPath.scene.columnBase(.x)[4] == 5.5)
    }

    @Test("a short body and a bad header fail as they do in memory")
    func sameErrors() throws {
        var ply = PLYTestFile()
        ply.elements = [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 3), count: 9_000)]
        var bytes = ply.bytes
        bytes.removeLast(1_000)
        let short = try Self.write(bytes, "short.ply")
        let streamedError = try #require(thrownKindAndMessage { () throws(SplatError) in try SplatFile.decode(path: short) })
        let wholeError = try #require(thrownKindAndMessage { () throws(SplatError) in try Self.inMemory(short) })
        #expect(streamedError.kind == .truncated)
        #expect(streamedError == wholeError)

        // Over the caller's limit: refused from the header, before any row is read.
        let limits = DecodeLimits(maxDecodedBytes: 1_000)
        #expect(thrownKindAndMessage { () throws(SplatError) in try SplatFile.decode(path: short, limits: limits) }
                == thrownKindAndMessage { () throws(SplatError) in try Self.inMemory(short, limits: limits) })

        let badHeader = try Self.write(Array("ply\nformat binary_little_endian 1.0\nelement vertex x\nend_header\n".utf8), "bad.ply")
        let badStreamed = thrownKindAndMessage { () throws(SplatError) in try SplatFile.decode(path: badHeader) }
        #expect(badStreamed?.kind == .badHeader)
        #expect(badStreamed == thrownKindAndMessage { () throws(SplatError) in try Self.inMemory(badHeader) })
    }

    @Test("a file cut shorter after it was opened ends in truncated, naming where it ended")
    func shrinksAfterOpen() throws {
        var ply = PLYTestFile()
        ply.elements = [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 15), count: 12_000)]
        let bytes = ply.bytes
        let path = try Self.write(bytes, "shrinks.ply")
        let file = try RegularFile(path: path, maxBytes: 1 << 30)
        #expect(file.size == bytes.count)
        #expect(truncate(path, off_t(bytes.count - 300_000)) == 0)
        let error = thrownKindAndMessage { () throws(SplatError) in try PLYDecoder.decode(file, limits: DecodeLimits()) }
        #expect(error?.kind == .truncated)
        #expect(error?.message.contains("the file ended after") == true, "\(String(describing: error))")
    }
}

/// What a decode threw, in the terms two decodes of the same bytes must agree on.
struct ThrownError: Equatable {
    var kind: SplatErrorKind
    var message: String
    var offset: Int?
    var field: String?
}

/// What `body` throws, nil when it succeeds.
func thrownKindAndMessage<T>(_ body: () throws(SplatError) -> T) -> ThrownError? {
    do { _ = try body(); return nil } catch { return ThrownError(kind: error.kind, message: error.message, offset: error.offset, field: error.field) }
}
