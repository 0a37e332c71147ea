import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// The gzip container (versions 1–3): inflation caps, trailer damage, header checks.
extension SPZDecoderTests {
    /// A legacy payload whose header claims one splat but which inflates to megabytes: the
    /// header checks pass, so the inflater's own cap must stop it.
    @Test("a gzip payload inflating past its cap is too_large, without reserving more than the cap")
    func trailingBomb() throws {
        var payload = SPZTestFiles.u32(0x5053_474E) + SPZTestFiles.u32(3) + SPZTestFiles.u32(1) + [0, 12, 0, 0]
        payload += [UInt8](repeating: 0x80, count: 20)
        payload += [UInt8](repeating: 0, count: 3 << 20)
        let file = TestGzip.gzip(payload)
        let limits = DecodeLimits(maxDecodedBytes: 2 << 20)
        // P = 36 bytes, so the cap is min(36 + 1 MiB, 2 MiB).
        #expect(GzipInflater.outputCap(payloadSize: 36, limits: limits) == 36 + (1 << 20))
        let error = try #require(SPZTestFiles.decodeError(file, limits: limits))
        #expect(error.kind == .tooLarge)
        #expect(error.message.contains("\(36 + (1 << 20))"))
        // Under the default ceiling the cap is still max(1 MiB, P) past P: 3 MiB is too much.
        #expect(SPZTestFiles.decodeError(file)?.kind == .tooLarge)
        // One MiB of trailing zeros is within the slack and decodes with a warning.
        let small = TestGzip.gzip(Array(payload[0..<(36 + 1000)]))
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
        let error = try #require(SPZTestFiles.decodeError(TestGzip.gzip(payload)))
        #expect(error.kind == .truncated)
        #expect(error.message == "legacy payload 66 bytes, expected 206")
    }

    @Test("legacy header fields are validated before inflating the rest")
    func legacyHeaderChecks() {
        func file(version: UInt32 = 3, count: UInt32 = 1, degree: UInt8 = 0, bits: UInt8 = 12, magic: UInt32 = 0x5053_474E) -> [UInt8] {
            TestGzip.gzip(SPZTestFiles.u32(magic) + SPZTestFiles.u32(version) + SPZTestFiles.u32(count) + [degree, bits, 0, 0])
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
        #expect(SPZTestFiles.decodeError(TestGzip.gzip([0x4E, 0x47, 0x53, 0x50, 3]))?.kind == .truncated)
    }

    @Test("version 4 inside gzip decodes with the v3 layout and a warning")
    func gzipVersion4() throws {
        let v3 = try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v3.spz"))
        var payload = try #require(TestGzip.gunzip(v3))
        payload[4] = 4
        let decoded = try SPZTestFiles.decode(TestGzip.gzip(payload))
        let entry = try #require(Self.vectorEntries["sh1-ext-v3.spz"])
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: entry) == [])
        #expect(decoded.header.version == 4 && decoded.header.details["container"] == "gzip")
        #expect(decoded.scene.warnings.contains { $0.hasPrefix("version 4 inside a gzip container") })
        #expect(decoded.scene.declaredFrame == .rdf)
    }

    @Test("Spark's LoD flag is warned about and its trailer ignored")
    func sparkFlag() throws {
        let v3 = try SPZTestFiles.bytes(Fixtures.vector("clamp-quat-v3.spz"))
        var payload = try #require(TestGzip.gunzip(v3))
        payload[14] = 0x80
        payload += [1, 0, 0, 0, 0, 0] // one u16 child count and one u32 child start
        let decoded = try SPZTestFiles.decode(TestGzip.gzip(payload))
        #expect(decoded.scene.alpha[0] == Float(200) / 255)
        #expect(decoded.scene.warnings == ["flag 0x80 (Spark LoD tree): the tree after the attributes is ignored and alpha decoded as usual"])
    }
}

/// SPZ values are finite by construction, so `SplatFile` skips the non-finite pass for them —
/// except v1's binary16 positions, where an infinity or NaN is still dropped.
@Suite struct SPZFinitenessTests {
    /// `v1-half.spz` with splat `index`'s x position replaced by the binary16 `bits`.
    static func v1(withX bits: UInt16, at index: Int) throws -> [UInt8] {
        let packed = try #require(TestGzip.gunzip(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("v1-half.spz"))))))
        var body = packed
        body[16 + 6 * index] = UInt8(bits & 0xFF)
        body[16 + 6 * index + 1] = UInt8(bits >> 8)
        return TestGzip.gzip(body)
    }

    @Test(arguments: [UInt16(0x7C00), 0xFC00, 0x7E00])
    func halfPositionsAreStillFiltered(bits: UInt16) throws {
        let clean = try SplatFile.decode(path: Fixtures.vector("v1-half.spz")).scene
        let bytes = try Self.v1(withX: bits, at: 1)
        let decoded = try bytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: "bad-half.spz")) }
        #expect(decoded.scene.count == clean.count - 1)
        #expect(decoded.scene.warnings.contains { $0.hasPrefix("non_finite") })
        #expect(Array(decoded.scene.x).allSatisfy { $0.isFinite })
    }

    /// The fixed-point versions are proven finite by the decoder itself (no filter pass).
    @Test func fixedPointVersionsAreProvenFinite() throws {
        for name in ["minimal-v2.spz", "minimal-v3.spz", "minimal-v4.spz", "sh1-ext-v4.spz", "deg4-v4.spz"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector(name))))
            let decoded = try bytes.withUnsafeBytes { try SPZDecoder.decode($0, file: name, limits: DecodeLimits()) }
            #expect(decoded.valuesProvenFinite, "\(name)")
            #expect(decoded.everySplatUsable, "\(name)")
            #expect(try NonFiniteFilter.apply(to: decoded.scene, strict: true) == 0)
        }
        let v1 = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("v1-half.spz"))))
        let half = try v1.withUnsafeBytes { try SPZDecoder.decode($0, file: "v1", limits: DecodeLimits()) }
        #expect(!half.valuesProvenFinite && !half.everySplatUsable)
    }
}
