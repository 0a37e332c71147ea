import CDeflate
import CZstd
import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// Helpers shared by the SPZ decoder and encoder suites.
enum SPZTestFiles {
    static func decode(path: String, limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        let input = try InputBytes(path: path)
        return try SPZDecoder.decode(input.bytes, file: path, limits: limits)
    }

    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        var result: Result<DecodedScene, SplatError>!
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(SplatError) in try SPZDecoder.decode(raw, file: "memory.spz", limits: limits) }
        }
        return try result.get()
    }

    static func readHeader(_ bytes: [UInt8]) throws(SplatError) -> SceneHeader {
        var result: Result<SceneHeader, SplatError>!
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(SplatError) in try SPZDecoder.readHeader(raw, file: "memory.spz", limits: DecodeLimits()) }
        }
        return try result.get()
    }

    /// The error a decode throws, or nil when it succeeds.
    static func decodeError(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> SplatError? {
        do { _ = try decode(bytes, limits: limits); return nil } catch { return error }
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// One gzip member (libdeflate, level 6).
    static func gzip(_ data: [UInt8]) -> [UInt8] {
        let compressor = libdeflate_alloc_compressor(6)!
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_gzip_compress_bound(compressor, data.count))
        let n = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                libdeflate_gzip_compress(compressor, src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        return Array(out[0..<n])
    }

    /// Inflates a whole gzip file whose trailer gives the size.
    static func gunzip(_ data: [UInt8]) -> [UInt8] {
        let n = data.count
        let size = Int(data[n - 4]) | Int(data[n - 3]) << 8 | Int(data[n - 2]) << 16 | Int(data[n - 1]) << 24
        var out = [UInt8](repeating: 0, count: size)
        let decompressor = libdeflate_alloc_decompressor()!
        defer { libdeflate_free_decompressor(decompressor) }
        let status = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                libdeflate_gzip_decompress(decompressor, src.baseAddress, src.count, dst.baseAddress, dst.count, nil)
            }
        }
        precondition(status == LIBDEFLATE_SUCCESS, "test fixture does not inflate")
        return out
    }

    /// One zstd frame; `contentSize: false` leaves the frame's content size out.
    static func zstd(_ data: [UInt8], contentSize: Bool = true) -> [UInt8] {
        let cctx = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(cctx) }
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, contentSize ? 1 : 0)
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
        let n = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in ZSTD_compress2(cctx, dst.baseAddress, dst.count, src.baseAddress, src.count) }
        }
        precondition(ZSTD_isError(n) == 0)
        return Array(out[0..<n])
    }

    static func u32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func u64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// A v4 file from already-compressed streams. `uncompressed` gives the TOC sizes.
    static func v4File(count: UInt32, degree: UInt8, flags: UInt8 = 0, extensions: [UInt8] = [],
                       streams: [[UInt8]], uncompressed: [Int]) -> [UInt8] {
        var out = u32(0x5053_474E) + u32(4) + u32(count) + [degree, 12, flags, UInt8(streams.count)]
        out += u32(UInt32(32 + extensions.count)) + [UInt8](repeating: 0, count: 12)
        out += extensions
        for (s, size) in zip(streams, uncompressed) { out += u64(UInt64(s.count)) + u64(UInt64(size)) }
        for s in streams { out += s }
        return out
    }

    /// The legacy payload (16-byte header and blocks) of a v4 file, decompressing its streams.
    static func rawStreams(ofV4 file: [UInt8]) -> [[UInt8]] {
        let s = Int(file[15])
        let toc = Int(file[16]) | Int(file[17]) << 8 | Int(file[18]) << 16 | Int(file[19]) << 24
        var offset = toc + 16 * s
        var result: [[UInt8]] = []
        for i in 0..<s {
            let entry = toc + 16 * i
            let c = file[entry..<entry + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let u = file[entry + 8..<entry + 16].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            var out = [UInt8](repeating: 0, count: u)
            let src = Array(file[offset..<offset + c])
            let n = src.withUnsafeBytes { s in out.withUnsafeMutableBytes { d in ZSTD_decompress(d.baseAddress, d.count, s.baseAddress, s.count) } }
            precondition(n == u)
            result.append(out)
            offset += c
        }
        return result
    }

    // MARK: reference decodes

    /// A reference `spz_to_ply` output: binary little-endian, every property a float.
    struct ReferencePLY {
        var count: Int
        var names: [String: Int]
        var rowFloats: Int
        var values: [Float]

        init(path: String) throws {
            var data = try bytes(path)
            if path.hasSuffix(".gz") { data = gunzip(data) }
            let marker = Array("end_header\n".utf8)
            guard let end = (0..<data.count - marker.count).first(where: { data[$0..<$0 + marker.count].elementsEqual(marker) }) else {
                throw SplatError(.badHeader, "no end_header", file: path)
            }
            let text = String(decoding: data[0..<end], as: UTF8.self)
            count = 0
            names = [:]
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.first == "element", words.count == 3 { count = Int(words[2])! }
                if words.first == "property" {
                    #expect(words[1] == "float", "reference PLYs hold floats only")
                    names[String(words[2])] = names.count
                }
            }
            rowFloats = names.count
            let body = end + marker.count, total = count * rowFloats
            var floats = [Float](repeating: 0, count: total)
            floats.withUnsafeMutableBytes { dst in
                data.withUnsafeBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[body..<body + 4 * total])) }
            }
            values = floats // little-endian host, as the reference files are
        }

        func value(_ name: String, _ i: Int) -> Float { values[i * rowFloats + names[name]!] }
        /// A column reader with the name looked up once.
        func column(_ name: String) -> (Int) -> Float {
            let index = names[name]!, stride = rowFloats, values = values
            return { values[$0 * stride + index] }
        }
        var restCount: Int { names.keys.filter { $0.hasPrefix("f_rest_") }.count }
    }

    /// The reference decode that belongs to an SPZ file of the corpus: `X.v4.decoded.ply` when
    /// the reference stored one for a re-encode (v3 re-encodes decode to the same bytes), else
    /// `X.decoded.ply`, each possibly gzipped.
    static func referenceDecode(for spz: URL) -> String? {
        var stem = spz.deletingPathExtension().lastPathComponent
        for suffix in [".v4", ".v3"] where stem.hasSuffix(suffix) { stem.removeLast(suffix.count) }
        let folder = spz.deletingLastPathComponent().lastPathComponent == "reference"
            ? spz.deletingLastPathComponent() : spz.deletingLastPathComponent().appendingPathComponent("reference")
        let isOriginal = spz.deletingLastPathComponent().lastPathComponent != "reference"
        let candidates = isOriginal ? ["\(stem).decoded.ply"] : ["\(stem).v4.decoded.ply", "\(stem).decoded.ply"]
        for name in candidates {
            for ext in ["", ".gz"] {
                let path = folder.appendingPathComponent(name + ext).path
                if FileManager.default.fileExists(atPath: path) { return path }
            }
        }
        return nil
    }

    /// Every SPZ of the corpus except the raw negative case, with its reference decode.
    static func corpusFiles() -> [String] {
        var out: [String] = []
        let corpus = Fixtures.corpus
        for folder in ["spz", "spz/reference", "ply/reference"] {
            let dir = corpus.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".spz") && !name.contains("minimal-raw") {
                out.append("\(folder)/\(name)")
            }
        }
        return out
    }
}

@Suite("SPZ decoder")
struct SPZDecoderTests {
    /// Parsed JSON is not Sendable, so it is read where needed rather than shared.
    static var vectorEntries: [String: [String: Any]] { (try? Fixtures.expectedVectors()) ?? [:] }
    static let okVectors = vectorEntries.filter { $0.key.hasSuffix(".spz") && ($0.value["expect"] as? String) == "ok" }.keys.sorted()
    static let errorVectors = vectorEntries.filter { $0.key.hasSuffix(".spz") && ($0.value["expect"] as? String) == "error" }.keys.sorted()

    @Test("the vector lists are not empty")
    func vectorsFound() {
        #expect(Self.okVectors.count >= 9)
        #expect(Self.errorVectors.count >= 10)
    }

    @Test("valid vectors decode to expected.json", arguments: okVectors)
    func vectorDecodes(_ name: String) throws {
        let entry = try #require(Self.vectorEntries[name])
        let decoded = try SPZTestFiles.decode(path: Fixtures.vector(name))
        let scene = decoded.scene
        #expect(ExpectedSplats.mismatches(scene, expected: entry) == [])
        let header = decoded.header
        #expect(header.version == entry["version"] as? Int)
        #expect(header.details["container"] == entry["container"] as? String)
        #expect(header.details["fractional_bits"] == (entry["fractional_bits"] as? Int).map(String.init))
        #expect(header.details["flags"] == (entry["flags"] as? Int).map(String.init))
        #expect(scene.conventionalFrame == .rub)
        if let toc = entry["toc_byte_offset"] as? Int {
            #expect(header.details["toc_byte_offset"] == String(toc))
        }
        let extensions = entry["extensions"] as? [[String: Any]] ?? []
        let frame = extensions.first { $0["coordinate_system"] != nil }?["coordinate_system"] as? Int
        #expect(scene.declaredFrame?.rawValue == frame)
        #expect(header.declaredFrame?.rawValue == frame)
        if let orbit = extensions.first(where: { $0["name"] as? String == "SPZ_ADOBE_safe_orbit_camera" }) {
            let want = CameraHints(elevationMin: Float(orbit["elevation_min"] as! Double),
                                   elevationMax: Float(orbit["elevation_max"] as! Double),
                                   radiusMin: Float(orbit["radius_min"] as! Double))
            #expect(scene.cameraHints == want)
        } else {
            #expect(scene.cameraHints == nil)
        }
        let unknown = extensions.filter { $0["name"] as? String == "unknown" }
        #expect(scene.warnings.filter { $0.hasPrefix("unknown extension") }.count == unknown.count)
    }

    @Test("malformed vectors fail with the expected kind and message", arguments: errorVectors)
    func vectorFails(_ name: String) throws {
        let entry = try #require(Self.vectorEntries[name])
        let bytes = try SPZTestFiles.bytes(Fixtures.vector(name))
        let error = try #require(SPZTestFiles.decodeError(bytes))
        #expect(error.kind.rawValue == entry["error"] as? String)
        #expect("\(error.kind.rawValue): \(error.message)" == entry["message"] as? String)
        // readHeader reports the same structural failures (it reads the same header and TOC);
        // the gzip truncation is only found when the rest is inflated.
        if name != "bad-gzip-truncated.spz" {
            #expect(throws: SplatError.self) { try SPZTestFiles.readHeader(bytes) }
        }
    }

    @Test("the decompression bomb is refused under a 1 MiB ceiling and decodes under the default")
    func bomb() throws {
        let path = Fixtures.vector("bomb-v2-4mib.spz")
        let small = DecodeLimits(maxDecodedBytes: 1 << 20)
        #expect(throws: SplatError(.tooLarge, "decoded scene would take 12320000 bytes (220000 splats at SH degree 0); the limit is 1048576",
                                   file: path, field: "count")) {
            try SPZTestFiles.decode(path: path, limits: small)
        }
        // Decided from the 16 inflated header bytes: the inflater is never asked for more.
        let head = try SPZTestFiles.readHeader(try SPZTestFiles.bytes(path))
        #expect(head.count == 220_000 && DecodeLimits().sizeVerdict(count: head.count, fileDegree: head.shDegree).declaredDecodedBytes == 12_320_000)
        let decoded = try SPZTestFiles.decode(path: path)
        #expect(decoded.scene.count == 220_000)
    }

    /// A legacy payload whose header claims one splat but which inflates to megabytes: the
    /// header checks pass, so the inflater's own cap must stop it.
    @Test("a gzip payload inflating past its cap is too_large, without reserving more than the cap")
    func trailingBomb() throws {
        var payload = SPZTestFiles.u32(0x5053_474E) + SPZTestFiles.u32(3) + SPZTestFiles.u32(1) + [0, 12, 0, 0]
        payload += [UInt8](repeating: 0x80, count: 20)
        payload += [UInt8](repeating: 0, count: 3 << 20)
        let file = SPZTestFiles.gzip(payload)
        let limits = DecodeLimits(maxDecodedBytes: 2 << 20)
        // P = 36 bytes, so the cap is min(36 + 1 MiB, 2 MiB).
        #expect(GzipInflater.outputCap(payloadSize: 36, limits: limits) == 36 + (1 << 20))
        let error = try #require(SPZTestFiles.decodeError(file, limits: limits))
        #expect(error.kind == .tooLarge)
        #expect(error.message.contains("\(36 + (1 << 20))"))
        // Under the default ceiling the cap is still max(1 MiB, P) past P: 3 MiB is too much.
        #expect(SPZTestFiles.decodeError(file)?.kind == .tooLarge)
        // One MiB of trailing zeros is within the slack and decodes with a warning.
        let small = SPZTestFiles.gzip(Array(payload[0..<(36 + 1000)]))
        let decoded = try SPZTestFiles.decode(small)
        #expect(decoded.scene.count == 1)
        #expect(decoded.scene.warnings.contains("1000 trailing bytes after attribute data ignored"))
    }

    @Test("gzip trailer and stream damage map to corrupt and truncated")
    func gzipDamage() throws {
        let good = try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v3.spz"))
        let reference = try SPZTestFiles.decode(good).scene
        var crc = good
        crc[crc.count - 6] ^= 0xFF
        #expect(SPZTestFiles.decodeError(crc)?.kind == .corrupt)
        var isize = good
        isize[isize.count - 1] ^= 0x01
        #expect(SPZTestFiles.decodeError(isize)?.kind == .corrupt)
        for cut in [good.count - 1, good.count - 8, good.count - 20, 30] {
            #expect(SPZTestFiles.decodeError(Array(good[0..<cut]))?.kind == .truncated, "cut at \(cut)")
        }
        // Bytes after the member are ignored (the ISIZE guess fails, zlib finds the member's end).
        let padded = try SPZTestFiles.decode(good + [1, 2, 3, 4, 5, 6, 7])
        #expect(padded.scene.x[2] == reference.x[2] && padded.scene.declaredFrame == .rdf)
        // Not gzip at all.
        #expect(SPZTestFiles.decodeError([0x1F, 0x8C, 0, 0])?.kind == .badMagic)
    }

    @Test("a legacy payload short of its blocks is truncated")
    func shortPayload() throws {
        let payload = SPZTestFiles.u32(0x5053_474E) + SPZTestFiles.u32(2) + SPZTestFiles.u32(10) + [0, 12, 0, 0] + [UInt8](repeating: 7, count: 50)
        let error = try #require(SPZTestFiles.decodeError(SPZTestFiles.gzip(payload)))
        #expect(error.kind == .truncated)
        #expect(error.message == "legacy payload 66 bytes, expected 206")
    }

    @Test("legacy header fields are validated before inflating the rest")
    func legacyHeaderChecks() {
        func file(version: UInt32 = 3, count: UInt32 = 1, degree: UInt8 = 0, bits: UInt8 = 12, magic: UInt32 = 0x5053_474E) -> [UInt8] {
            SPZTestFiles.gzip(SPZTestFiles.u32(magic) + SPZTestFiles.u32(version) + SPZTestFiles.u32(count) + [degree, bits, 0, 0])
        }
        #expect(SPZTestFiles.decodeError(file(magic: 0x1234_5678))?.kind == .badMagic)
        #expect(SPZTestFiles.decodeError(file(version: 5))?.kind == .unsupportedVersion)
        #expect(SPZTestFiles.decodeError(file(version: 0))?.kind == .unsupportedVersion)
        #expect(SPZTestFiles.decodeError(file(count: 0))?.kind == .empty)
        #expect(SPZTestFiles.decodeError(file(count: 0x8000_0000))?.kind == .implausibleCount)
        #expect(SPZTestFiles.decodeError(file(degree: 5))?.kind == .badHeader)
        #expect(SPZTestFiles.decodeError(file(bits: 32))?.kind == .badHeader)
        // A ceiling breach is decided from the header: 20 M splats, 16 bytes of payload.
        #expect(SPZTestFiles.decodeError(file(count: 20_000_000))?.kind == .tooLarge)
        // The packed payload is checked too: at SH degree 4 it is 92 of the 344 decoded bytes.
        let limits = DecodeLimits(maxDecodedBytes: 1000, maxShDegree: 0)
        #expect(SPZTestFiles.decodeError(file(count: 12, degree: 4), limits: limits)?.message
                == "packed SPZ payload would take 1120 bytes; the limit is 1000")
        // Fewer than 16 inflated bytes.
        #expect(SPZTestFiles.decodeError(SPZTestFiles.gzip([0x4E, 0x47, 0x53, 0x50, 3]))?.kind == .truncated)
    }

    @Test("version 4 inside gzip decodes with the v3 layout and a warning")
    func gzipVersion4() throws {
        let v3 = try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v3.spz"))
        var payload = SPZTestFiles.gunzip(v3)
        payload[4] = 4
        let decoded = try SPZTestFiles.decode(SPZTestFiles.gzip(payload))
        let entry = try #require(Self.vectorEntries["sh1-ext-v3.spz"])
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: entry) == [])
        #expect(decoded.header.version == 4 && decoded.header.details["container"] == "gzip")
        #expect(decoded.scene.warnings.contains { $0.hasPrefix("version 4 inside a gzip container") })
        #expect(decoded.scene.declaredFrame == .rdf)
    }

    @Test("Spark's LoD flag is warned about and its trailer ignored")
    func sparkFlag() throws {
        let v3 = try SPZTestFiles.bytes(Fixtures.vector("clamp-quat-v3.spz"))
        var payload = SPZTestFiles.gunzip(v3)
        payload[14] = 0x80
        payload += [1, 0, 0, 0, 0, 0] // one u16 child count and one u32 child start
        let decoded = try SPZTestFiles.decode(SPZTestFiles.gzip(payload))
        #expect(decoded.scene.alpha[0] == Float(200) / 255)
        #expect(decoded.scene.warnings == ["flag 0x80 (Spark LoD tree): the tree after the attributes is ignored and alpha decoded as usual"])
    }

    @Test("v4 header oddities give warnings, not errors")
    func v4Warnings() throws {
        var bytes = try SPZTestFiles.bytes(Fixtures.vector("minimal-v4.spz"))
        bytes[14] = 0x40
        bytes[25] = 1
        let decoded = try SPZTestFiles.decode(bytes)
        #expect(decoded.scene.warnings == ["reserved header bytes are not zero", "unknown flag bits 0x40 ignored"])
        #expect(decoded.scene.model == .default)
    }

    @Test("v4 streams: concatenated frames are accepted; lying frames are corrupt")
    func v4Frames() throws {
        let original = try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v4.spz"))
        let raw = SPZTestFiles.rawStreams(ofV4: original)
        let sizes = raw.map(\.count)
        let extensions = Array(original[32..<77])
        func file(_ streams: [[UInt8]]) -> [UInt8] {
            SPZTestFiles.v4File(count: 3, degree: 1, flags: 3, extensions: extensions, streams: streams, uncompressed: sizes)
        }
        let entry = try #require(Self.vectorEntries["sh1-ext-v4.spz"])
        // Every stream split into two frames, one of them without a content size.
        let split = raw.map { s in SPZTestFiles.zstd(Array(s[0..<s.count / 2])) + SPZTestFiles.zstd(Array(s[(s.count / 2)...]), contentSize: false) }
        let decoded = try SPZTestFiles.decode(file(split))
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: entry) == [])
        #expect(decoded.scene.declaredFrame == .rdf)

        let plain = raw.map { SPZTestFiles.zstd($0) }
        for (index, name) in ["positions", "alphas", "colors", "scales", "rotations", "sh"].enumerated() {
            // A frame declaring one byte more than the TOC.
            var longer = plain
            longer[index] = SPZTestFiles.zstd(raw[index] + [0])
            let e1 = SPZTestFiles.decodeError(file(longer))
            #expect(e1?.kind == .corrupt && e1?.field == name, "\(name): \(String(describing: e1))")
            #expect(e1?.message == "stream \(name): zstd frames declare \(sizes[index] + 1) bytes, expected \(sizes[index])")
            // The same without a content size: the output is capped, then refused.
            longer[index] = SPZTestFiles.zstd(raw[index] + [0], contentSize: false)
            #expect(SPZTestFiles.decodeError(file(longer))?.kind == .corrupt, "\(name) overlong")
            // One byte short, without a content size.
            var shorter = plain
            shorter[index] = SPZTestFiles.zstd(Array(raw[index].dropLast()), contentSize: false)
            #expect(SPZTestFiles.decodeError(file(shorter))?.kind == .corrupt, "\(name) short")
            // Damaged frame data.
            var damaged = plain
            damaged[index] = Array(repeating: 0xAB, count: plain[index].count)
            #expect(SPZTestFiles.decodeError(file(damaged))?.kind == .corrupt, "\(name) damaged")
        }
        // Failures are reported in file order whatever the inflation order.
        var two = plain
        two[1] = [1, 2, 3]
        two[5] = [4, 5, 6]
        #expect(SPZTestFiles.decodeError(file(two))?.field == "alphas")
    }

    @Test("v4 TOC checks beyond the vectors")
    func v4TOC() throws {
        let original = try SPZTestFiles.bytes(Fixtures.vector("minimal-v4.spz"))
        // A compressed size of 2^63 or more is refused before any arithmetic.
        var huge = original
        for k in 0..<8 { huge[32 + k] = 0xFF }
        #expect(SPZTestFiles.decodeError(huge)?.kind == .truncated)
        // A gap: the first stream claims one byte less, so the bytes do not end at EOF.
        var gap = original
        gap[32] -= 1
        #expect(SPZTestFiles.decodeError(gap)?.message == "1 bytes after the last stream")
        // Shorter than the header.
        #expect(SPZTestFiles.decodeError(Array(original[0..<31]))?.kind == .truncated)
        // The ceiling applies to the declared scene.
        #expect(SPZTestFiles.decodeError(original, limits: DecodeLimits(maxDecodedBytes: 4 * 56 - 1))?.kind == .tooLarge)
        // Bytes between header and TOC without the extension flag are ignored with a warning.
        let raw = SPZTestFiles.rawStreams(ofV4: original)
        let padded = SPZTestFiles.v4File(count: 4, degree: 0, extensions: [9, 9, 9], streams: raw.map { SPZTestFiles.zstd($0) },
                                         uncompressed: raw.map(\.count))
        let decoded = try SPZTestFiles.decode(padded)
        #expect(decoded.scene.warnings == ["3 bytes between header and TOC without the extension flag; ignored"])
    }

    @Test("extension records: lengths past the block, unknown and unspecified values")
    func extensionParsing() {
        func parse(_ bytes: [UInt8]) -> SPZExtensions {
            bytes.withUnsafeBytes { SPZExtensions.parse($0) }
        }
        let u32 = SPZTestFiles.u32
        let frame = parse(u32(0xADBE_0003) + u32(4) + u32(8) + u32(0xADBE_0003) + u32(4) + u32(6))
        #expect(frame.declaredFrame == .ruf && frame.records.count == 2)
        #expect(frame.warnings == ["second coordinate-system extension (RDF) ignored; keeping RUF"])
        #expect(parse(u32(0xADBE_0003) + u32(4) + u32(0)).declaredFrame == nil)
        #expect(parse(u32(0xADBE_0003) + u32(4) + u32(17)).warnings == ["coordinate-system extension value 17 is unknown; ignored"])
        let cut = parse(u32(0xADBE_0002) + u32(12) + u32(0) + [1, 2])
        #expect(cut.cameraHints == nil && cut.warnings == ["extension 0xadbe0002 claims 12 bytes but only 6 remain; stopped reading extensions"])
        let short = parse(u32(0xADBE_0002) + u32(4) + u32(0) + [1, 2, 3])
        #expect(short.warnings == ["safe-orbit-camera extension payload is 4 bytes, expected 12; ignored",
                                   "3 trailing byte(s) after the extension records ignored"])
        let roundTrip = parse(SPZExtensions.serialize(declaredFrame: .lbu, cameraHints: CameraHints(elevationMin: -1, elevationMax: 2, radiusMin: 3)))
        #expect(roundTrip.declaredFrame == .lbu && roundTrip.cameraHints == CameraHints(elevationMin: -1, elevationMax: 2, radiusMin: 3))
        #expect(roundTrip.warnings.isEmpty)
    }

    @Test("readHeader reads only the header and TOC")
    func readHeader() throws {
        let v4 = try SPZTestFiles.readHeader(try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v4.spz")))
        #expect(v4.format == .spz && v4.version == 4 && v4.count == 3 && v4.shDegree == 1 && v4.model == .antialiased)
        #expect(v4.declaredFrame == .rdf && v4.conventionalFrame == .rub)
        #expect(v4.cameraHints == CameraHints(elevationMin: -0.25, elevationMax: 1, radiusMin: 2.5))
        #expect(v4.details == ["container": "ngsp-zstd", "fractional_bits": "12", "flags": "3", "num_streams": "6",
                               "toc_byte_offset": "77", "extensions": "0xadbe0003,0xadbe0002,0x12340001"])
        let legacy = try SPZTestFiles.readHeader(try SPZTestFiles.bytes(Fixtures.vector("sh2-v2.spz")))
        #expect(legacy.version == 2 && legacy.count == 3 && legacy.shDegree == 2 && legacy.model == .default)
        #expect(legacy.details == ["container": "gzip", "fractional_bits": "12", "flags": "0"])
        // A damaged stream body is not noticed by readHeader, only by decode.
        var damaged = try SPZTestFiles.bytes(Fixtures.vector("minimal-v4.spz"))
        damaged[damaged.count - 3] ^= 0xFF
        #expect(try SPZTestFiles.readHeader(damaged).count == 4)
    }

    @Test("maxShDegree drops bands before allocating, in both containers")
    func shTruncation() throws {
        for (name, cap) in [("deg4-v4.spz", 2), ("sh2-v2.spz", 1), ("sh1-ext-v4.spz", 0), ("sh1-ext-v3.spz", 0)] {
            let path = Fixtures.vector(name)
            let full = try SPZTestFiles.decode(path: path).scene
            let cut = try SPZTestFiles.decode(path: path, limits: DecodeLimits(maxShDegree: cap)).scene
            #expect(cut.shDegree == cap && cut.count == full.count)
            for i in 0..<full.count {
                #expect(cut.position(i) == full.position(i) && cut.rotation(i) == full.rotation(i) && cut.dc(i) == full.dc(i))
                for k in 0..<cut.shCoefficientsPerChannel {
                    #expect(cut.shCoefficient(i, k) == full.shCoefficient(i, k), "\(name) splat \(i) coefficient \(k)")
                }
            }
        }
    }

    @Test("SH bytes in the last quarter of their floats convert in place, over several parallel levels")
    func shInPlace() {
        for count in [0, 1, 5, 4095, 4097, 100_003] {
            let region = UnsafeMutableRawPointer.allocate(byteCount: max(1, 4 * count), alignment: 64)
            defer { region.deallocate() }
            let packed = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ $0 >> 8) }
            if count > 0 { packed.withUnsafeBytes { (region + 3 * count).copyMemory(from: $0.baseAddress!, byteCount: count) } }
            // 1 KiB chunks: 100,003 bytes take three parallel levels before the sequential rest.
            SPZDequantizer.shInPlace(region, count: count, chunk: 1024)
            let floats = region.assumingMemoryBound(to: Float.self)
            let wrong = (0..<count).filter { floats[$0] != (Float(packed[$0]) - 128) / 128 }
            #expect(wrong.isEmpty, "count \(count): first wrong index \(wrong.first ?? -1)")
        }
    }

    @Test("the decoder goes through SplatFile by its bytes")
    func throughSplatFile() throws {
        let decoded = try SplatFile.decode(path: Fixtures.vector("minimal-v4.spz"))
        #expect(decoded.scene.count == 4 && decoded.header.format == .spz)
        #expect(throws: SplatError.self) { try SplatFile.decode(path: Fixtures.vector("minimal-raw.spz")) }
    }

    /// Compares our decode with the reference library's (`spz_to_ply`, no conversion) value by
    /// value. Where this project deliberately differs from the reference:
    /// * alpha stays linear (byte/255); the reference writes its logit, ±infinity for bytes 255
    ///   and 0 — compared by taking our logit in the same Float arithmetic;
    /// * quaternions are normalized here and not in the reference (smallest-three and first-three
    ///   both rebuild a nearly unit quaternion), so rotations agree to ~1e-6, and up to sign
    ///   (re-encoded v2 files may come back as −q, the same rotation);
    /// * the reference leaves the smallest-three square root unclamped (NaN for sums of squares
    ///   above 1); we clamp. No corpus file triggers it; `clamp-quat-v3.spz` covers it.
    @Test("corpus SPZ files match the reference decodes", arguments: SPZTestFiles.corpusFiles())
    func corpusMatchesReference(_ relative: String) throws {
        let url = Fixtures.corpus.appendingPathComponent(relative)
        let referencePath = try #require(SPZTestFiles.referenceDecode(for: url), "no reference decode for \(relative)")
        let reference = try SPZTestFiles.ReferencePLY(path: referencePath)
        let scene = try SPZTestFiles.decode(path: url.path).scene
        #expect(scene.count == reference.count)
        #expect(scene.shCoefficientsPerChannel * 3 == reference.restCount)
        let dim = scene.shCoefficientsPerChannel
        var mismatches: [String] = []
        func check(_ what: String, _ i: Int, _ ours: Float, _ theirs: Float, tolerance: Float = 0) {
            if !(abs(ours - theirs) <= tolerance || ours == theirs) && mismatches.count < 20 {
                mismatches.append("splat \(i) \(what): \(ours) vs reference \(theirs)")
            }
        }
        // Scalar reads of the columns: SIMD helpers are slow in debug builds.
        let scales = [scene.logScaleX, scene.logScaleY, scene.logScaleZ], dcs = [scene.dcR, scene.dcG, scene.dcB]
        let rotations = [scene.rotW, scene.rotX, scene.rotY, scene.rotZ], sh = scene.sh
        let refX = reference.column("x"), refY = reference.column("y"), refZ = reference.column("z")
        let refScales = (0..<3).map { reference.column("scale_\($0)") }, refDC = (0..<3).map { reference.column("f_dc_\($0)") }
        let refRotations = (0..<4).map { reference.column("rot_\($0)") }, refOpacity = reference.column("opacity")
        // Reference PLYs store f_rest channel-major: all red coefficients, then green, then blue.
        let refRest = (0..<3 * dim).map { reference.column("f_rest_\($0)") }
        for i in 0..<min(scene.count, reference.count) {
            check("x", i, scene.x[i], refX(i))
            check("y", i, scene.y[i], refY(i))
            check("z", i, scene.z[i], refZ(i))
            for a in 0..<3 {
                check("scale_\(a)", i, scales[a][i], refScales[a](i))
                check("f_dc_\(a)", i, dcs[a][i], refDC[a](i))
            }
            let alpha = scene.alpha[i]
            let logit = alpha >= 1 ? Float.infinity : alpha <= 0 ? -Float.infinity : Foundation.log(alpha / (1 - alpha))
            check("opacity", i, logit, refOpacity(i), tolerance: 1e-5 * max(1, abs(logit)))
            var dot: Float = 0
            for c in 0..<4 { dot += rotations[c][i] * refRotations[c](i) }
            let sign: Float = dot < 0 ? -1 : 1
            for c in 0..<4 { check("rot_\(c)", i, rotations[c][i], sign * refRotations[c](i), tolerance: 2e-6) }
            for k in 0..<dim {
                for c in 0..<3 {
                    check("sh[\(k)][\(c)]", i, sh[(i * dim + k) * 3 + c], refRest[c * dim + k](i))
                }
            }
        }
        #expect(mismatches == [], "\(relative) vs \(referencePath)")
    }
}
