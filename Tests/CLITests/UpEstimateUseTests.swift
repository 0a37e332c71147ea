import Foundation
import Testing
import SplatService
import TestSupport
@testable import SplatRenderCLI

/// The CLI makes the up estimate only when it decides the frame, unless a report will print it
/// (`--report`, `--json`); the images are the same either way.
@Suite struct UpEstimateUseTests {
    static func use(_ args: [String]) throws -> LoadOptions.UpEstimateUse {
        let parsed = try CommandLineParser.parse(args)
        return CommandContext(parsed: parsed, stdin: .standardInput, stdout: CapturedOutput(), stderr: CapturedOutput()).upEstimateUse
    }

    @Test func onlyAReportOrJSONAsksForTheEstimate() throws {
        #expect(try Self.use(["render", "a.spz", "--out", "a.png"]) == .whenItDecides)
        #expect(try Self.use(["render", "a.spz", "--out", "a.png", "--verbose"]) == .whenItDecides)
        #expect(try Self.use(["render", "a.spz", "--out", "a.png", "--report", "r.json"]) == .always)
        #expect(try Self.use(["thumbnails", "in", "--out-dir", "o"]) == .whenItDecides)
        #expect(try Self.use(["thumbnails", "in", "--out-dir", "o", "--json"]) == .always)
        #expect(try Self.use(["thumbnails", "in", "--out-dir", "o", "--report", "-"]) == .always)
    }

    /// A thumbnail batch with `--source-frame` (the estimate decides nothing) writes the same PNG
    /// with and without its report; the report still carries the estimate.
    @Test func thumbnailsWithoutAReportWriteTheSameImage() throws {
        let dir = try Fixtures.temporaryDirectory("up-estimate-use")
        let input = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path
        let options = ["--resolution", "48x32", "--source-frame", "RUB"]
        let plain = dir.appendingPathComponent("plain").path
        let reported = dir.appendingPathComponent("reported").path
        let reportPath = dir.appendingPathComponent("report.jsonl").path
        #expect(runCLI(["thumbnails", input, "--out-dir", plain] + options).status == 0)
        #expect(runCLI(["thumbnails", input, "--out-dir", reported, "--report", reportPath] + options).status == 0)
        let a = try Data(contentsOf: URL(fileURLWithPath: plain + "/biker.png"))
        let b = try Data(contentsOf: URL(fileURLWithPath: reported + "/biker.png"))
        #expect(a.count > 100 && a == b)
        let line = try #require(try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n").first)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let estimate = try #require(report["up_estimate"] as? [String: Any])
        #expect(estimate["axis"] as? String == "+Y")
    }
}
