import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

@Suite("PLYDecoder")
struct PLYDecoderTests {
    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        try withTestBytes(bytes) { raw throws(SplatError) in try PLYDecoder.decode(raw, file: "test.ply", limits: limits) }
    }

    static func header(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        try withTestBytes(bytes) { raw throws(SplatError) in try PLYDecoder.readHeader(raw, file: "test.ply", limits: limits) }
    }

    // MARK: - Test vectors

    @Test("tiny 3DGS vectors match expected.json", arguments: ["tiny-3dgs-le.ply", "tiny-3dgs-ascii.ply", "tiny-3dgs-be.ply"])
    func vectors(name: String) throws {
        let expected = try #require(try Fixtures.expectedVectors()[name])
        let bytes = try readFixtureBytes(Fixtures.vector(name))
        let decoded = try Self.decode(bytes)
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty,
                "\(ExpectedSplats.mismatches(decoded.scene, expected: expected))")
        #expect(decoded.header.details["ply_format"] == expected["ply_format"] as? String)
        #expect(decoded.scene.conventionalFrame == .rdf)
        // formats.md 3.2: sh[0] comes from f_rest_0, f_rest_3, f_rest_6.
        #expect(decoded.scene.shCoefficient(0, 0) == SIMD3<Float>(0.125, -0.125, 0.0625))

        let header = try Self.header(bytes)
        #expect(header.count == expected["num_points"] as? Int)
        #expect(header.shDegree == expected["sh_degree"] as? Int)
        #expect(header.model.rawValue == expected["model"] as? String)
        #expect(header.format == .ply)
    }

    @Test("the same vectors through SplatFile")
    func vectorsThroughSplatFile() throws {
        let vectors = try Fixtures.expectedVectors()
        for name in ["tiny-3dgs-le.ply", "tiny-3dgs-be.ply"] {
            let decoded = try SplatFile.decode(path: Fixtures.vector(name))
            #expect(ExpectedSplats.mismatches(decoded.scene, expected: vectors[name]!).isEmpty)
        }
    }

    @Test("bad PLY vectors fail with their expected kind")
    func badVectors() throws {
        let vectors = try Fixtures.expectedVectors()
        let bad = vectors.keys.filter { $0.hasPrefix("bad-ply-") }.sorted()
        #expect(bad.count >= 3)
        for name in bad {
            let want = try #require(vectors[name]?["error"] as? String)
            let bytes = try readFixtureBytes(Fixtures.vector(name))
            do {
                _ = try Self.decode(bytes)
                Issue.record("\(name) decoded; expected \(want)")
            } catch {
                #expect(error.kind.rawValue == want, "\(name): \(error)")
                if name == "bad-ply-truncated.ply" {
                    #expect(error.message == "element vertex needs 208 bytes, 201 left")
                }
            }
        }
    }

    // MARK: - Corpus

    static let corpusFiles: [(file: String, count: Int, degree: Int)] = {
        guard let manifest = try? Fixtures.manifest(), let files = manifest["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String, file.hasPrefix("ply/"),
                  let n = f["splat_count"] as? Int, let d = f["sh_degree"] as? Int else { return nil }
            return (file, n, d)
        }
    }()

    @Test("corpus PLYs decode with the manifest's count and degree")
    func corpusCounts() throws {
        // Every PLY in the corpus folder has a manifest entry (so a new file cannot go untested).
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Fixtures.corpusFile("ply"))
            .filter { $0.hasSuffix(".ply") }.map { "ply/" + $0 }.sorted()
        #expect(Self.corpusFiles.map(\.file).sorted() == onDisk)
        #expect(Self.corpusFiles.count >= 6)
        for entry in Self.corpusFiles {
            let bytes = try readFixtureBytes(Fixtures.corpusFile(entry.file))
            let header = try Self.header(bytes)
            #expect(header.count == entry.count, "\(entry.file)")
            #expect(header.shDegree == entry.degree, "\(entry.file)")
            let decoded = try Self.decode(bytes)
            #expect(decoded.scene.count == entry.count, "\(entry.file)")
            #expect(decoded.scene.shDegree == entry.degree, "\(entry.file)")
            #expect(decoded.scene.model == .default)
        }
    }

    @Test("corpus PLYs match splat_ref.py on a sample of splats", .enabled(if: SplatRefSampler.available))
    func corpusAgainstReference() throws {
        for entry in Self.corpusFiles {
            let path = Fixtures.corpusFile(entry.file)
            let sample = try SplatRefSampler.sample(path)
            #expect(sample.indices.count >= min(entry.count, 40))
            let decoded = try Self.decode(try readFixtureBytes(path))
            let problems = SplatRefSampler.mismatches(decoded.scene, sample)
            #expect(problems.isEmpty, "\(entry.file): \(problems.prefix(5))")
        }
    }
}
