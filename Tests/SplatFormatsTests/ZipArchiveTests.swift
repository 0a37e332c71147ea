import CDeflate
import Foundation
import SplatCore
import Testing
import TestSupport
@testable import SplatFormats

/// Builds zip archives byte by byte for the reader's edge cases (and for SOG bundles made from
/// the test vectors' images). Independent of `ZipArchive`: it follows the PKWARE layout directly.
struct TestZipWriter {
    struct Item {
        var name: String
        var data: [UInt8]
        /// 0 stored, 8 deflate (compressed here with libdeflate).
        var method: UInt16 = 0
        /// Zero CRC and sizes in the local header, real values in a data descriptor (flag bit 3),
        /// as splat-transform writes.
        var dataDescriptor = false
        /// Written to the central directory instead of the real CRC.
        var crcOverride: UInt32? = nil
        /// A ZIP64 extended-information extra field in the central entry.
        var zip64Extra = false
    }

    /// Offsets of what the last `build` wrote, for tests that then corrupt them.
    struct Layout {
        var localHeaderOffsets: [Int] = []
        var centralEntryOffsets: [Int] = []
        var endRecordOffset = 0
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(truncatingIfNeeded: libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }

    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        let compressor = libdeflate_alloc_compressor(9)!
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_deflate_compress_bound(compressor, bytes.count) + 16)
        let n = bytes.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                libdeflate_deflate_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        return Array(out[0..<n])
    }

    static func build(_ items: [Item], layout: inout Layout) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: UInt16, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32, _ to: inout [UInt8]) { for s in stride(from: 0, to: 32, by: 8) { to.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        layout = Layout()
        for item in items {
            let payload = item.method == 8 ? deflate(item.data) : item.data
            let crc = crc32(item.data)
            let name = Array(item.name.utf8)
            let flags: UInt16 = item.dataDescriptor ? 0x0808 : 0x0800
            let offset = out.count
            layout.localHeaderOffsets.append(offset)
            u32(0x0403_4B50, &out); u16(20, &out); u16(flags, &out); u16(item.method, &out); u16(0, &out); u16(0x21, &out)
            u32(item.dataDescriptor ? 0 : crc, &out)
            u32(item.dataDescriptor ? 0 : UInt32(payload.count), &out)
            u32(item.dataDescriptor ? 0 : UInt32(item.data.count), &out)
            u16(UInt16(name.count), &out); u16(0, &out)
            out += name
            out += payload
            if item.dataDescriptor {
                u32(0x0807_4B50, &out); u32(crc, &out); u32(UInt32(payload.count), &out); u32(UInt32(item.data.count), &out)
            }
            var extra: [UInt8] = []
            if item.zip64Extra {
                u16(0x0001, &extra); u16(8, &extra); u32(UInt32(item.data.count), &extra); u32(0, &extra)
            }
            layout.centralEntryOffsets.append(central.count)
            u32(0x0201_4B50, &central); u16(20, &central); u16(20, &central); u16(flags, &central); u16(item.method, &central)
            u16(0, &central); u16(0x21, &central)
            u32(item.crcOverride ?? crc, &central); u32(UInt32(payload.count), &central); u32(UInt32(item.data.count), &central)
            u16(UInt16(name.count), &central); u16(UInt16(extra.count), &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(0, &central); u32(UInt32(offset), &central)
            central += name
            central += extra
        }
        let centralOffset = out.count
        layout.centralEntryOffsets = layout.centralEntryOffsets.map { $0 + centralOffset }
        out += central
        layout.endRecordOffset = out.count
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out)
        u16(UInt16(items.count), &out); u16(UInt16(items.count), &out)
        u32(UInt32(central.count), &out); u32(UInt32(centralOffset), &out); u16(0, &out)
        return out
    }

    static func build(_ items: [Item]) -> [UInt8] {
        var layout = Layout()
        return build(items, layout: &layout)
    }

    /// Overwrites a little-endian u32 at `offset`.
    static func patch32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8((value >> UInt32(8 * i)) & 0xFF) }
    }

    static func patch16(_ bytes: inout [UInt8], at offset: Int, _ value: UInt16) {
        bytes[offset] = UInt8(value & 0xFF)
        bytes[offset + 1] = UInt8(value >> 8)
    }
}

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
        let zip = TestZipWriter.build([.init(name: "a.webp", data: binary, crcOverride: TestZipWriter.crc32(binary) ^ 1)])
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
