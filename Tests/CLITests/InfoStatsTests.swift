import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatService
import TestSupport
@testable import SplatRenderCLI

/// `info --stats`: `SceneStatistics` through the library's `InfoJob` and the CLI, as text and
/// as JSON numbers, checked against values computed here from the decoded scene.
@Suite struct InfoStatsTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path

    @Test func jsonNumbersMatchTheDecodedScene() throws {
        let run = runCLI(["info", Self.fruit, "--stats", "--json"])
        #expect(run.status == 0, "\(run.err.text)")
        let info = try jsonObject(run.out)
        let stats = try #require(info["stats"] as? [String: Any])
        let scene = try SplatFile.decode(path: Self.fruit).scene
        #expect(stats["splats"] as? Int == scene.count)
        #expect(stats["sh_degree"] as? Int == 3)
        #expect(stats["effective_sh_degree"] as? Int == 3)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: Self.fruit)[.size] as? Int)
        #expect(stats["file_bytes"] as? Int == size)
        #expect(stats["decoded_bytes"] as? Int == scene.count * 236)
        let ratio = try #require(stats["compression_ratio"] as? Double)
        #expect(abs(ratio - Double(scene.count * 236) / Double(size)) < 1e-12)
        // Opacity attribute: the alpha column's own extremes and mean, as JSON numbers.
        let attributes = try #require(stats["attributes"] as? [String: Any])
        let opacity = try #require(attributes["opacity"] as? [String: Any])
        let alphas = (0..<scene.count).map { Double(scene.alpha[$0]) }
        #expect(opacity["count"] as? Int == scene.count && opacity["finite"] as? Int == scene.count)
        #expect(opacity["min"] as? Double == alphas.min() && opacity["max"] as? Double == alphas.max())
        let mean = alphas.reduce(0, +) / Double(alphas.count)
        #expect(abs(try #require(opacity["mean"] as? Double) - mean) < 1e-9)
        #expect(attributes["sh_band_3"] != nil && attributes["sh_band_4"] == nil)
        let percentiles = try #require(stats["opacity_percentiles"] as? [String: Any])
        let sorted = alphas.sorted()
        let h = Double(sorted.count - 1) * 0.5, k = Int(h)
        let median = sorted[k] + (h - Double(k)) * (sorted[min(k + 1, sorted.count - 1)] - sorted[k])
        #expect(abs(try #require(percentiles["p50"] as? Double) - median) < 1e-12)
        let box = try #require(stats["robust_box"] as? [String: Any])
        #expect((box["lower"] as? [Double])?.count == 3 && box["opaque_only"] as? Bool == true)
        #expect(try #require((stats["overdraw"] as? [String: Any])?["ratio"] as? Double) > 0)
    }

    @Test func zeroRestCoefficientsGiveEffectiveDegreeZero() throws {
        // The gs3d tiles declare SH 3 and carry only zeros in f_rest.
        let path = Fixtures.corpusFile("ply/gs3d-pr477-lod3_tile_0.ply")
        let run = runCLI(["info", path, "--stats", "--json"])
        #expect(run.status == 0, "\(run.err.text)")
        let stats = try #require(try jsonObject(run.out)["stats"] as? [String: Any])
        #expect(stats["sh_degree"] as? Int == 3)
        #expect(stats["effective_sh_degree"] as? Int == 0)
    }

    @Test func textAndLibrary() throws {
        let run = runCLI(["info", Self.fruit, "--stats"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.out.text.contains("sh degree:"), "\(run.out.text)")
        #expect(run.out.text.contains("3 stored, 3 effective"))
        #expect(run.out.text.contains("overdraw:"))
        // Without --stats nothing is decoded and no stats key is given.
        let plain = try jsonObject(runCLI(["info", Self.fruit, "--json"]).out)
        #expect(plain["stats"] == nil)
        // The library: the same numbers from InfoJob, also for bytes in memory (their size is the file size).
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fruit)))
        let held = try bytes.withUnsafeBytes { (raw) throws(SplatError) in
            try InputBytes.checked(raw, name: "fruit.ply", format: nil, limits: DecodeLimits())
        }
        let input = SceneInput.memory(held)
        let info = try InfoJob(input: input, computeStatistics: true).run()
        let statistics = try #require(info.statistics)
        #expect(statistics.fileBytes == bytes.count && statistics.splatCount == 4721)
    }
}
