import Foundation
import SplatCore
import Testing
import TestSupport
@testable import SplatFormats

/// Opens `bytes` as an archive and reads every entry, returning name → contents or the error.
private func readAll(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> Result<[String: [UInt8]], SplatError> {
    bytes.withUnsafeBytes { raw in
        do throws(SplatError) {
            let zip = try ZipArchive(raw, file: "test.zip")
            var out: [String: [UInt8]] = [:]
            for entry in zip.entries {
                out[entry.name] = try zip.contents(of: entry, limits: limits).withBytes { Array($0) }
            }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }
}

private func errorKind(_ r: Result<[String: [UInt8]], SplatError>) -> SplatErrorKind? {
    if case .failure(let e) = r { return e.kind }
    return nil
}

@Suite("Zip archive reader")
struct ZipArchiveTests {
    let text = Array("meta.json contents, repeated: ".utf8) + Array(repeating: UInt8(ascii: "x"), count: 3000)
    let binary: [UInt8] = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }

    @Test func storedEntriesWithDataDescriptorsReadBack() throws {
        let zip = TestZipWriter.build([
            .init(name: "meta.json", data: text, dataDescriptor: true),
            .init(name: "quats.webp", data: binary, dataDescriptor: true),
            .init(name: "empty", data: []),
        ])
        let entries = try readAll(zip).get()
        #expect(entries["meta.json"] == text)
        #expect(entries["quats.webp"] == binary)
        #expect(entries["empty"] == [])
    }

    @Test func deflateEntryInflatesToTheCentralSize() throws {
        let zip = TestZipWriter.build([.init(name: "a.webp", data: text, method: 8, dataDescriptor: true)])
        #expect(zip.count < text.count)  // really compressed
        let entries = try readAll(zip).get()
        #expect(entries["a.webp"] == text)
    }

    @Test func deflateEntryOverTheCeilingIsRefusedBeforeInflating() {
        let zip = TestZipWriter.build([.init(name: "a.webp", data: text, method: 8)])
        #expect(errorKind(readAll(zip, limits: DecodeLimits(maxDecodedBytes: 1000))) == .tooLarge)
    }

    @Test func deflateEntryWhoseSizeLiesIsCorrupt() {
        var layout = TestZipWriter.Layout()
        var zip = TestZipWriter.build([.init(name: "a.webp", data: text, method: 8)], layout: &layout)
        // Central uncompressed size one byte too large, then one too small.
        TestZipWriter.patch32(&zip, at: layout.centralEntryOffsets[0] + 24, UInt32(text.count + 1))
        #expect(errorKind(readAll(zip)) == .corrupt)
        TestZipWriter.patch32(&zip, at: layout.centralEntryOffsets[0] + 24, UInt32(text.count - 1))
        #expect(errorKind(readAll(zip)) == .corrupt)
    }

    @Test func crcMismatchIsCorrupt() {
        let zip = TestZipWriter.build([.init(name: "a.webp", data: binary, crcOverride: TestGzip.crc32(binary) ^ 1)])
        #expect(errorKind(readAll(zip)) == .corrupt)
        let deflated = TestZipWriter.build([.init(name: "a.webp", data: text, method: 8, crcOverride: 0xDEAD_BEEF)])
        #expect(errorKind(readAll(deflated)) == .corrupt)
    }

    @Test func unsafeNamesAreBadMeta() {
        for name in ["../meta.json", "images/../../x.webp", "/etc/passwd", "\\windows\\x", "C:/x.webp", "a\\..\\b"] {
            let zip = TestZipWriter.build([.init(name: name, data: binary)])
            #expect(errorKind(readAll(zip)) == .badMeta, "name \(name)")
        }
        // A `..` inside a name is not a component.
        #expect(throws: Never.self) { try readAll(TestZipWriter.build([.init(name: "a..b.webp", data: binary)])).get() }
    }

    @Test func zip64IsUnsupported() {
        var layout = TestZipWriter.Layout()
        var zip = TestZipWriter.build([.init(name: "a.webp", data: binary)], layout: &layout)
        TestZipWriter.patch32(&zip, at: layout.endRecordOffset + 16, 0xFFFF_FFFF)
        #expect(errorKind(readAll(zip)) == .unsupported)

        let extra = TestZipWriter.build([.init(name: "a.webp", data: binary, zip64Extra: true)])
        #expect(errorKind(readAll(extra)) == .unsupported)

        var sizes = TestZipWriter.build([.init(name: "a.webp", data: binary)], layout: &layout)
        TestZipWriter.patch32(&sizes, at: layout.centralEntryOffsets[0] + 24, 0xFFFF_FFFF)
        #expect(errorKind(readAll(sizes)) == .unsupported)
    }

    @Test func unsupportedMethodAndEncryption() {
        var layout = TestZipWriter.Layout()
        var zip = TestZipWriter.build([.init(name: "a.webp", data: binary)], layout: &layout)
        TestZipWriter.patch16(&zip, at: layout.centralEntryOffsets[0] + 10, 12)  // bzip2
        #expect(errorKind(readAll(zip)) == .unsupported)
        zip = TestZipWriter.build([.init(name: "a.webp", data: binary)], layout: &layout)
        TestZipWriter.patch16(&zip, at: layout.centralEntryOffsets[0] + 8, 0x0001)  // encrypted
        #expect(errorKind(readAll(zip)) == .unsupported)
    }

    @Test func centralDirectoryThatLiesIsCorrupt() {
        var layout = TestZipWriter.Layout()
        let good = TestZipWriter.build([.init(name: "a.webp", data: binary), .init(name: "b.webp", data: text)], layout: &layout)

        var offsetPastEOF = good
        TestZipWriter.patch32(&offsetPastEOF, at: layout.endRecordOffset + 16, UInt32(good.count + 100))
        #expect(errorKind(readAll(offsetPastEOF)) == .corrupt)

        var sizePastEOF = good
        TestZipWriter.patch32(&sizePastEOF, at: layout.endRecordOffset + 12, 0x7FFF_0000)
        #expect(errorKind(readAll(sizePastEOF)) == .corrupt)

        var tooManyEntries = good
        TestZipWriter.patch16(&tooManyEntries, at: layout.endRecordOffset + 8, 3)
        TestZipWriter.patch16(&tooManyEntries, at: layout.endRecordOffset + 10, 3)
        #expect(errorKind(readAll(tooManyEntries)) == .corrupt)

        var localPastEOF = good
        TestZipWriter.patch32(&localPastEOF, at: layout.centralEntryOffsets[1] + 42, UInt32(good.count + 10))
        #expect(errorKind(readAll(localPastEOF)) == .corrupt)

        var localElsewhere = good  // points at entry a's header: the local name differs
        TestZipWriter.patch32(&localElsewhere, at: layout.centralEntryOffsets[1] + 42, 0)
        #expect(errorKind(readAll(localElsewhere)) == .corrupt)

        var dataPastEOF = good
        TestZipWriter.patch32(&dataPastEOF, at: layout.centralEntryOffsets[1] + 20, UInt32(good.count))
        TestZipWriter.patch32(&dataPastEOF, at: layout.centralEntryOffsets[1] + 24, UInt32(good.count))
        #expect(errorKind(readAll(dataPastEOF)) == .corrupt)

        var storedSizesDisagree = good
        TestZipWriter.patch32(&storedSizesDisagree, at: layout.centralEntryOffsets[0] + 24, UInt32(binary.count - 1))
        #expect(errorKind(readAll(storedSizesDisagree)) == .corrupt)
    }

    @Test func cutArchiveHasNoEndRecord() {
        let zip = TestZipWriter.build([.init(name: "a.webp", data: binary)])
        #expect(errorKind(readAll(Array(zip[0..<(zip.count - 30)]))) == .truncated)
        #expect(errorKind(readAll(Array(zip[0..<10]))) == .truncated)
    }

    @Test func duplicateNamesAreCorrupt() {
        let zip = TestZipWriter.build([.init(name: "a.webp", data: binary), .init(name: "a.webp", data: text)])
        #expect(errorKind(readAll(zip)) == .corrupt)
    }

    @Test func archiveCommentIsSkipped() throws {
        var layout = TestZipWriter.Layout()
        var zip = TestZipWriter.build([.init(name: "a.webp", data: binary)], layout: &layout)
        let comment = Array("written by a test; PK\u{5}\u{6} inside the comment is not an end record".utf8)
        TestZipWriter.patch16(&zip, at: layout.endRecordOffset + 20, UInt16(comment.count))
        zip += comment
        #expect(try readAll(zip).get()["a.webp"] == binary)
    }

    /// The corpus bundle: stored entries with data descriptors, CRCs verified, members as listed.
    @Test func corpusBundleEntries() throws {
        let manifest = try Fixtures.manifest()
        let files = manifest["files"] as! [[String: Any]]
        let entry = try #require(files.first { ($0["file"] as? String) == "sog/monkey_0001.sog" })
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.corpusFile("sog/monkey_0001.sog")))
        let contents = try readAll(Array(data)).get()
        #expect(Set(contents.keys) == Set(entry["zip_members"] as! [String]))
        #expect(contents["sh0.webp"]?.count == 52)
        #expect(contents["meta.json"].map { String(decoding: $0, as: UTF8.self).hasPrefix("{\"version\":2") } == true)
    }
}
