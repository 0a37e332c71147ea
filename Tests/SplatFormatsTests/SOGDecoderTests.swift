import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

@Suite("SOG decoder")
struct SOGDecoderTests {
    @Test func tinyBundleMatchesExpected() throws {
        let expected = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        let decoded = try SplatFile.decode(path: Fixtures.vector("tiny.sog"))
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty,
                "\(ExpectedSplats.mismatches(decoded.scene, expected: expected))")
        #expect(decoded.scene.count == 3)
        #expect(decoded.scene.model == .antialiased)
        #expect(decoded.scene.conventionalFrame == .rdf)
        #expect(decoded.header.version == 2)
        #expect(decoded.header.shDegree == 1)
        #expect(decoded.header.details["sog_version"] == "2")
        #expect(decoded.header.details["bundled"] == "true")
        #expect(decoded.header.details["texture_size"] == "4x4")
        #expect(decoded.header.details["sh_palette_size"] == "2")
        #expect(decoded.scene.warnings.isEmpty)
    }

    @Test func tinyV1DirectoryMatchesExpected() throws {
        let expected = try #require(try Fixtures.expectedVectors()["tiny-sog-v1/meta.json"])
        for path in [Fixtures.vector("tiny-sog-v1/meta.json"), Fixtures.vector("tiny-sog-v1")] {
            let decoded = try SplatFile.decode(path: path)
            let mismatches = ExpectedSplats.mismatches(decoded.scene, expected: expected)
            #expect(mismatches.isEmpty, "\(path): \(mismatches)")
            #expect(decoded.header.version == 1)
            #expect(decoded.header.details["bundled"] == "false")
            #expect(decoded.scene.model == .default)
        }
    }

    @Test func headersReadMetaOnly() throws {
        let tiny = try SplatFile.readHeader(path: Fixtures.vector("tiny.sog"))
        #expect(tiny.format == .sog && tiny.version == 2 && tiny.count == 3 && tiny.shDegree == 1 && tiny.model == .antialiased)
        #expect(tiny.conventionalFrame == .rdf)
        let v1 = try SplatFile.readHeader(path: Fixtures.vector("tiny-sog-v1/meta.json"))
        #expect(v1.version == 1 && v1.count == 3 && v1.shDegree == 1 && v1.model == .default)

        // Images that could never be decoded do not matter to the header.
        let (meta, images) = try Self.tinyParts()
        let huge = images.mapValues { _ in Self.vp8lHeaderOnly(width: 16383, height: 16383) }
        let header = try Self.readHeader(try Self.bundle(meta: meta, images: huge)).get()
        #expect(header.count == 3 && header.shDegree == 1)
        // … but their decoded size is what a job must budget for.
        #expect(header.decodeScratchBytes >= huge.count * 16383 * 16383 * 4)
    }

    static let corpusSOGs = ["sog/monkey_0001.sog", "sog/playbot-lod4/", "sog/playcanvas-logo-v1/"]

    /// Every SOG in the corpus: count, degree and version as the manifest says.
    @Test(arguments: corpusSOGs)
    func corpusFileMatchesManifest(_ name: String) throws {
        let files = try Fixtures.manifest()["files"] as! [[String: Any]]
        let entry = try #require(files.first { ($0["file"] as? String) == name })
        let path = Fixtures.corpusFile(name)
        let header = try SplatFile.readHeader(path: path)
        let decoded = try SplatFile.decode(path: path)
        #expect(header.count == entry["splat_count"] as? Int)
        #expect(header.shDegree == entry["sh_degree"] as? Int)
        #expect(header.version == entry["format_version"] as? Int)
        #expect(header.details["bundled"] == (name.hasSuffix(".sog") ? "true" : "false"))
        #expect(decoded.scene.count == entry["splat_count"] as? Int)
        #expect(decoded.scene.shDegree == entry["sh_degree"] as? Int)
    }

    /// A sample of every corpus SOG (first, middle and last 50 splats) equals the independent
    /// Python decode. Needs python3 with zstandard and Pillow (WebP); skipped otherwise.
    @Test(.enabled(if: SOGPythonReference.available, "python3 with zstandard and Pillow (WebP) is needed"),
          arguments: corpusSOGs)
    func corpusFileMatchesPythonReference(_ name: String) throws {
        let path = Fixtures.corpusFile(name)
        let decoded = try SplatFile.decode(path: path)
        let refPath = name.hasSuffix("/") ? (path as NSString).appendingPathComponent("meta.json") : path
        let (indices, reference) = try SOGPythonReference.decode(refPath)
        #expect(reference["num_points"] as? Int == decoded.scene.count)
        #expect(reference["sh_degree"] as? Int == decoded.scene.shDegree)
        let splats = reference["splats"] as! [[String: Any]]
        #expect(splats.count == indices.count && indices.count == min(150, decoded.scene.count))
        let diffs = SOGPythonReference.compare(decoded.scene, indices: indices, splats: splats)
        #expect(diffs.isEmpty, "\(diffs)")
    }

    @Test func deflatedBundleDecodesLikeStored() throws {
        let (meta, images) = try Self.tinyParts()
        let stored = try Self.decode(try Self.bundle(meta: meta, images: images)).get()
        let deflated = try Self.decode(try Self.bundle(meta: meta, images: images, method: 8)).get()
        let expected = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        #expect(ExpectedSplats.mismatches(stored.scene, expected: expected).isEmpty)
        #expect(ExpectedSplats.mismatches(deflated.scene, expected: expected).isEmpty)
    }

    @Test func maxShDegreeDropsBands() throws {
        var limits = DecodeLimits()
        limits.maxShDegree = 0
        let decoded = try SplatFile.decode(path: Fixtures.vector("tiny.sog"), limits: limits)
        #expect(decoded.scene.shDegree == 0)
        #expect(decoded.header.shDegree == 1)  // the file's degree
        let original = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        var expected = original
        expected["sh_degree"] = 0
        expected["splats"] = (expected["splats"] as! [[String: Any]]).map { var s = $0; s["sh"] = nil; return s }
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty)
    }
}
