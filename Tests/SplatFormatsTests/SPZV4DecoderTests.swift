import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// The NGSP container (version 4): header oddities, zstd frames, the TOC, extension records.
extension SPZDecoderTests {
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
}
