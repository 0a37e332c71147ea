import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

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

    @Test("readHeader reads only the header and TOC")
    func readHeader() throws {
        let v4 = try SPZTestFiles.readHeader(try SPZTestFiles.bytes(Fixtures.vector("sh1-ext-v4.spz")))
        #expect(v4.format == .spz && v4.version == 4 && v4.count == 3 && v4.shDegree == 1 && v4.model == .antialiased)
        #expect(v4.declaredFrame == .rdf && v4.conventionalFrame == .rub)
        #expect(v4.cameraHints == CameraHints(elevationMin: -0.25, elevationMax: 1, radiusMin: 2.5))
        #expect(v4.details == ["container": "ngsp-zstd", "fractional_bits": "12", "flags": "3", "num_streams": "6",
                               "toc_byte_offset": "77", "extensions": "0xadbe0003,0xadbe0002,0x12340001",
                               "antialiased": "true", "has_extensions": "true"])
        let legacy = try SPZTestFiles.readHeader(try SPZTestFiles.bytes(Fixtures.vector("sh2-v2.spz")))
        #expect(legacy.version == 2 && legacy.count == 3 && legacy.shDegree == 2 && legacy.model == .default)
        #expect(legacy.details == ["container": "gzip", "fractional_bits": "12", "flags": "0", "antialiased": "false",
                                   "has_extensions": "false"])
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
}
