import Foundation
import Testing
import SplatRender
import SplatCore
import SplatFormats
import TestSupport
@testable import SplatService

@Suite struct RunReportTests {
    static let keys = ["command", "input", "status", "message", "error", "format", "version", "count", "sh_degree", "model",
                       "declared_frame", "conventional_frame", "camera_hints", "decoded_count", "ceiling",
                       "estimated_peak_bytes", "memory_estimate", "frame_decision", "up_estimate",
                       "camera", "orbit", "sheet", "render_stats", "framing_extent", "outputs", "warnings", "timings_ms", "stages_ms",
                       "peak_rss_bytes"]

    static func keys(of value: JSONValue) -> [String] {
        guard case .object(let members) = value else { return [] }
        return members.map(\.0)
    }

    @Test func everyReportHasTheSameKeysInTheSameOrder() throws {
        let dir = try Fixtures.temporaryDirectory("svc-report")
        let ok = SceneJob(input: .path(Fixtures.vector("minimal-v4.spz")), view: ViewRequest(settings: RenderSettings(width: 8, height: 8)),
                          image: .file(dir.appendingPathComponent("a.png").path)).run().report
        #expect(ok.status == "ok")
        #expect(Self.keys(of: ok.json) == Self.keys)
        let bad = SceneJob(input: .path(Fixtures.vector("bad-ply-truncated.ply")), image: .caller).run().report
        #expect(bad.status == "truncated")
        #expect(Self.keys(of: bad.json) == Self.keys)
        var inBatch = bad
        inBatch.index = 3
        inBatch.exitCode = 65
        let keys = Self.keys(of: inBatch.json)
        #expect(keys.prefix(2) == ["command", "index"] && keys.contains("exit_code"))

        // One line, valid JSON, with the stage times summed into the four coarse stages.
        let line = ok.jsonLine
        #expect(!line.contains("\n"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let stages = try #require(parsed["stages_ms"] as? [String: Double])
        let timings = try #require(parsed["timings_ms"] as? [String: Double])
        #expect(Set(stages.keys) == ["decode", "frame", "render", "encode"])
        let decode = (timings["read_header"] ?? 0) + (timings["decode"] ?? 0)
        #expect(abs((stages["decode"] ?? -1) - decode) < 0.01)
        #expect((parsed["peak_rss_bytes"] as? Int ?? 0) > 1 << 20)
        let ceiling = try #require(parsed["ceiling"] as? [String: Any])
        #expect(ceiling["fits_service_ceiling"] as? Bool == true)
        let error = try #require((try JSONSerialization.jsonObject(with: Data(bad.jsonLine.utf8)) as? [String: Any])?["error"] as? [String: Any])
        #expect(error["kind"] as? String == "truncated" && error["stage"] as? String == "input")
    }

    @Test func encodableGivesTheSameDocument() throws {
        let report = SceneJob(input: .path(Fixtures.vector("bad-ply-truncated.ply")), image: .caller).run().report
        let viaEncoder = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? NSDictionary
        let viaLine = try JSONSerialization.jsonObject(with: Data(report.jsonLine.utf8)) as? NSDictionary
        #expect(viaEncoder != nil && viaEncoder == viaLine)
    }

    @Test func aSceneOverTheLimitIsRefusedFromItsHeaderWithoutDecoding() throws {
        var load = LoadOptions()
        load.limits.maxDecodedBytes = 100_000
        let report = SceneJob(input: .path(ServiceFixtures.fruit), load: load, image: .caller).run().report
        #expect(report.status == "too_large")
        #expect(report.header?.count == 4721)
        #expect(report.verdict?.declaredDecodedBytes == 4721 * 236 && report.verdict?.fitsLimit == false)
        #expect(report.decodedCount == nil)
        #expect(report.timings[.decode] == nil)
    }

    @Test func memoryInputsAreNamedAndDotSplatNeedsItsFormat() throws {
        let bytes = try ServiceFixtures.bytes(Fixtures.vector("minimal.splat"))
        let refused = SceneJob(input: .bytes(bytes, name: "-"), image: .caller).run().report
        #expect(refused.status == "bad_magic")
        #expect(refused.message.contains("--format splat"))
        let job = SceneJob(input: .bytes(bytes, name: "-"), load: LoadOptions(format: .splat),
                           view: ViewRequest(settings: RenderSettings(width: 12, height: 10)), image: .caller)
        let outcome = job.run()
        #expect(outcome.report.status == "ok")
        #expect(outcome.report.input == "-")
        #expect(outcome.image?.width == 12 && outcome.imageBytes?.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
    }
}
