import Foundation
import Testing
import SplatCore
import SplatService
import TestSupport
@testable import SplatRenderCLI

/// The blank-frame guard on the command line: the `low_coverage` warning on stderr, `blank`
/// with exit 65 under `--min-coverage`, and the `blank` status of a thumbnails input.
@Suite struct BlankGuardCommandTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let small = ["--resolution", "32x32", "--sh-degree", "0"]
    static let away = ["--camera-pos", "0,0,50", "--camera-target", "0,0,100"]

    @Test func renderWarnsThenFailsBlank() throws {
        let dir = try Fixtures.temporaryDirectory("cli-blank")
        let out = dir.appendingPathComponent("away.png").path
        let warned = runCLI([Self.fruit, "--out", out] + Self.away + Self.small)
        #expect(warned.status == 0, "\(warned.err.text)")
        #expect(warned.err.text.contains("low_coverage: image: no splat is visible"), "\(warned.err.text)")

        let strictOut = dir.appendingPathComponent("strict.png").path
        let report = dir.appendingPathComponent("strict.json").path
        let strict = runCLI([Self.fruit, "--out", strictOut, "--min-coverage", "0.01", "--report", report] + Self.away + Self.small)
        #expect(strict.status == ExitCode.dataError.rawValue)
        #expect(strict.err.text.contains("error: blank:"), "\(strict.err.text)")
        #expect(!FileManager.default.fileExists(atPath: strictOut))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(json["status"] as? String == "blank")
        #expect((json["warnings"] as? [String])?.contains { $0.hasPrefix("low_coverage:") } == true)
        #expect(ExitCode.forFailure(SplatError(.blank, "x"), at: .render) == .dataError)
    }

    @Test func thumbnailsInputGetsStatusBlank() throws {
        let dir = try Fixtures.temporaryDirectory("cli-blank-thumbs")
        let run = runCLI(["thumbnails", Self.fruit, "--out-dir", dir.path, "--min-coverage", "0.99", "--json"] + Self.small)
        #expect(run.status == ExitCode.someInputsFailed.rawValue, "\(run.err.text)")
        let line = try #require(run.out.text.split(separator: "\n").first)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(report["status"] as? String == "blank")
        #expect(report["framing_extent"] as? String == "all_splats")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("fruit.png").path))
    }
}
