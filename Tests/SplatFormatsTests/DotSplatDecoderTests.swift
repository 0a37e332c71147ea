import Foundation
import Testing
import SplatCore
@testable import SplatFormats
import TestSupport

@Suite("DotSplatDecoder")
struct DotSplatDecoderTests {
    static func decode(_ bytes: [UInt8]) throws(SplatError) -> DecodedScene {
        try withTestBytes(bytes) { raw throws(SplatError) in try DotSplatDecoder.decode(raw, file: "t.splat", limits: DecodeLimits()) }
    }

    static func record(position: SIMD3<Float>, sigma: SIMD3<Float>, rgba: [UInt8], rotation: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        for v in [position.x, position.y, position.z, sigma.x, sigma.y, sigma.z] {
            withUnsafeBytes(of: v.bitPattern.littleEndian) { out += $0 }
        }
        return out + rgba + rotation
    }

    @Test("minimal.splat matches expected.json")
    func vector() throws {
        let expected = try #require(try Fixtures.expectedVectors()["minimal.splat"])
        let decoded = try Self.decode(try readFixtureBytes(Fixtures.vector("minimal.splat")))
        let problems = ExpectedSplats.mismatches(decoded.scene, expected: expected)
        #expect(problems.isEmpty, "\(problems)")
        #expect(decoded.scene.conventionalFrame == .rdf)
        #expect(decoded.header.format == .splat)
        #expect(decoded.scene.shDegree == 0)
    }

    @Test("bad-size.splat is bad_size; an empty file is empty")
    func badSizes() throws {
        let expected = try Fixtures.expectedVectors()
        let want = try #require(expected["bad-size.splat"]?["error"] as? String)
        let bytes = try readFixtureBytes(Fixtures.vector("bad-size.splat"))
        do {
            _ = try Self.decode(bytes)
            Issue.record("bad-size.splat decoded")
        } catch {
            #expect(error.kind.rawValue == want)
        }
        #expect(thrownKind { () throws(SplatError) in try Self.decode([]) } == .empty)
        #expect(thrownKind { () throws(SplatError) in try withTestBytes([]) { raw throws(SplatError) in
            try DotSplatDecoder.readHeader(raw, file: nil, limits: DecodeLimits()) } } == .empty)
        #expect(thrownKind { () throws(SplatError) in try Self.decode([UInt8](repeating: 0, count: 31)) } == .badSize)
        #expect(thrownKind { () throws(SplatError) in try withTestBytes([UInt8](repeating: 0, count: 64)) { raw throws(SplatError) in
            try DotSplatDecoder.decode(raw, file: nil, limits: DecodeLimits(maxDecodedBytes: 111)) } } == .tooLarge)
    }

    @Test("corpus .splat files: manifest counts; luma-seal matches splat_ref.py")
    func corpus() throws {
        let manifest = try Fixtures.manifest()
        let files = try #require(manifest["files"] as? [[String: Any]]).filter { ($0["file"] as? String)?.hasPrefix("splat/") == true }
        #expect(files.count == 2)
        for f in files {
            let name = try #require(f["file"] as? String)
            let path = Fixtures.corpusFile(name)
            let bytes = try readFixtureBytes(path)
            let header = try withTestBytes(bytes) { raw throws(SplatError) in try DotSplatDecoder.readHeader(raw, file: name, limits: DecodeLimits()) }
            #expect(header.count == f["splat_count"] as? Int)
            #expect(header.shDegree == f["sh_degree"] as? Int)
            let decoded = try Self.decode(bytes)
            #expect(decoded.scene.count == f["splat_count"] as? Int)
            if SplatRefSampler.available {
                let sample = try SplatRefSampler.sample(path)
                let problems = SplatRefSampler.mismatches(decoded.scene, sample)
                #expect(problems.isEmpty, "\(name): \(problems.prefix(5))")
            }
        }
    }

    @Test("σ → ln σ: 0 gives −∞ (kept); negative, NaN and +∞ are dropped by the central filter")
    func sigmas() throws {
        let q: [UInt8] = [255, 128, 128, 128]
        let rgba: [UInt8] = [0, 128, 255, 51]
        let bytes = Self.record(position: [1, 2, 3], sigma: [1, 0, 0.5], rgba: rgba, rotation: q)
            + Self.record(position: [4, 5, 6], sigma: [-1, 1, 1], rgba: rgba, rotation: q)
            + Self.record(position: [7, 8, 9], sigma: [1, .nan, 1], rgba: rgba, rotation: q)
            + Self.record(position: [1, 1, 1], sigma: [1, 1, .infinity], rgba: rgba, rotation: q)
            + Self.record(position: [2, 2, 2], sigma: [-0.0, 1, 1], rgba: rgba, rotation: [128, 128, 128, 128])
        let raw = try Self.decode(bytes).scene
        #expect(raw.count == 5)
        #expect(raw.logScale(0) == SIMD3<Float>(0, -.infinity, logf(0.5)))
        #expect(raw.logScaleX[1].isNaN)
        #expect(raw.logScaleY[2].isNaN)
        #expect(raw.logScaleZ[3] == .infinity)
        #expect(raw.logScaleX[4] == -.infinity)
        // dc = (byte/255 − 0.5)/SH_C0, alpha = A/255, q = (byte − 128)/128 normalized.
        let c0 = 0.28209479177387814
        #expect(abs(Double(raw.dcR[0]) - (0 / 255 - 0.5) / c0) < 1e-6)
        #expect(abs(Double(raw.dcG[0]) - (128 / 255 - 0.5) / c0) < 1e-6)
        #expect(abs(Double(raw.dcB[0]) - (255 / 255 - 0.5) / c0) < 1e-6)
        #expect(raw.alpha[0] == Float(51) / 255)
        #expect(raw.rotation(0) == SIMD4<Float>(1, 0, 0, 0))
        // All four bytes 128: zero length → identity with a warning.
        #expect(raw.rotation(4) == SIMD4<Float>(1, 0, 0, 0))
        #expect(raw.warnings.contains { $0.contains("zero-length quaternion") && $0.contains("first index 4") })

        // Through SplatFile the non-finite rule drops splats 1, 2 and 3 and keeps the −∞ ones.
        let dir = try Fixtures.temporaryDirectory("splat")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("s.splat").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let filtered = try SplatFile.decode(path: path).scene
        #expect(filtered.count == 2)
        #expect(filtered.position(0) == SIMD3<Float>(1, 2, 3))
        #expect(filtered.position(1) == SIMD3<Float>(2, 2, 2))
    }
}
