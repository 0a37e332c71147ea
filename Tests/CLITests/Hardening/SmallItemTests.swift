import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatRenderCLI

/// Issue 12, the smaller correctness items (12).
@Suite struct HardeningSmallItemTests {
    /// Before, (0,0,0) was silently replaced by (0,1,0).
    @Test func cameraUpMustHaveADirection() throws {
        let dir = try Hardening.folder("up")
        let run = Hardening.runInProcess([Hardening.tiny, "--out", dir.appendingPathComponent("x.png").path, "--camera-up", "0,0,0"])
        #expect(run.status == 64, "\(run.err.text)")
        #expect(run.err.text.contains("--camera-up"))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
    }

    /// A PLY count of 2³¹ is an overflowing header number: `bad_header`, as formats.md 8.4 says
    /// (SECURITY.md's table said `implausible_count`; the two now agree).
    @Test func plyCountOf2To31IsBadHeader() throws {
        let dir = try Hardening.folder("ply-count")
        let path = dir.appendingPathComponent("big.ply").path
        try Data("ply\nformat binary_little_endian 1.0\nelement vertex 2147483648\nproperty float x\nend_header\n".utf8)
            .write(to: URL(fileURLWithPath: path))
        let run = Hardening.runInProcess(["info", path, "--json"])
        #expect(run.status == 65, "\(run.err.text)")
        let error = try Hardening.json(run.out.bytes)["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "bad_header")
        let security = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("SECURITY.md"), encoding: .utf8)
        #expect(security.contains("a PLY `element` count over it is `bad_header`"))
    }

    /// Control bytes from a file name or a header reach the terminal escaped.
    @Test func controlBytesInMessagesAreEscaped() throws {
        let dir = try Hardening.folder("escape")
        let named = dir.appendingPathComponent("bad\u{1B}[2Jname.ply").path
        try Data("not a scene".utf8).write(to: URL(fileURLWithPath: named))
        let byName = Hardening.runInProcess(["info", named])
        #expect(byName.status == 65)
        #expect(byName.err.text.contains("bad\\x1B[2Jname.ply"), "\(byName.err.text)")
        #expect(!byName.err.bytes.contains(0x1B))

        let header = dir.appendingPathComponent("nul.ply").path
        try Data("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\0y\nend_header\n".utf8)
            .write(to: URL(fileURLWithPath: header))
        let byHeader = Hardening.runInProcess(["info", header])
        #expect(byHeader.status == 65)
        #expect(byHeader.err.text.contains("x\\x00y"), "\(byHeader.err.text)")
        #expect(!byHeader.err.bytes.contains(0))

        let format = dir.appendingPathComponent("esc.ply").path
        try Data("ply\nformat bin\u{1B}ary 1.0\nend_header\n".utf8).write(to: URL(fileURLWithPath: format))
        let byFormat = Hardening.runInProcess(["info", format])
        #expect(byFormat.err.text.contains("bin\\x1Bary"), "\(byFormat.err.text)")
        #expect(!byFormat.err.bytes.contains(0x1B))
    }

    /// The success lines name files too: a newline or an escape sequence in a scene's name is
    /// shown escaped, so each input is one line of `thumbnails` output (it split the line).
    @Test func controlBytesInSuccessLinesAreEscaped() throws {
        let dir = try Hardening.folder("escape-ok")
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let name = "two\nlines\u{1B}[2J.ply"
        try Hardening.copy(Fixtures.vector("tiny-3dgs-le.ply"), to: input.appendingPathComponent(name))
        let batch = Hardening.runInProcess(["thumbnails", input.path, "--out-dir", dir.appendingPathComponent("out").path,
                                            "--resolution", "8x8"])
        #expect(batch.status == 0, "\(batch.err.text)")
        let lines = batch.out.text.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("ok ") }.count == 1 && lines.count == 2, "\(batch.out.text)")
        #expect(batch.out.text.contains("two\\x0Alines\\x1B[2J.ply"), "\(batch.out.text)")
        #expect(!batch.out.bytes.contains(0x1B))

        let single = Hardening.runInProcess([input.appendingPathComponent(name).path, "--out",
                                             dir.appendingPathComponent("a\nb.png").path, "--resolution", "8x8"])
        #expect(single.status == 0, "\(single.err.text)")
        #expect(single.out.text.contains("a\\x0Ab.png") && single.out.text.split(separator: "\n").count == 1, "\(single.out.text)")
        let info = Hardening.runInProcess(["info", input.appendingPathComponent(name).path])
        #expect(info.status == 0 && info.out.text.contains("two\\x0Alines") && !info.out.bytes.contains(0x1B), "\(info.out.text)")
    }

    /// `info` takes several files: one JSON line each, a bad file's line is an object with
    /// `error`, exit 2 when one fails.
    @Test func infoOfSeveralFiles() throws {
        let dir = try Hardening.folder("info-many")
        let bad = dir.appendingPathComponent("bad.spz").path
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: bad))
        let run = Hardening.runInProcess(["info", "--json", Hardening.tiny, bad])
        #expect(run.status == 2, "\(run.err.text)")
        let lines = try Hardening.jsonLines(run.out.text)
        #expect(lines.count == 2)
        #expect(lines.first?["count"] as? Int == 4)
        #expect(lines.first?["error"] == nil)
        let error = lines.last?["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "bad_magic")
        #expect(lines.last?["file"] as? String == bad)
        #expect(Hardening.runInProcess(["info", "--json", Hardening.tiny, Hardening.tiny]).status == 0)
    }

    /// Numbers are JSON numbers and SPZ flags are decoded booleans (looked at in the text: a
    /// parsed NSNumber cannot tell `false` from `0`).
    @Test func infoJSONNumbersAndSPZFlags() throws {
        let run = Hardening.runInProcess(["info", "--json", Hardening.tiny])
        #expect(run.status == 0)
        // One file prints the report pretty; several print one line each.
        let text = run.out.text.replacingOccurrences(of: "\": ", with: "\":")
        for fragment in ["\"count\":4", "\"version\":4", "\"flags\":0", "\"fractional_bits\":12", "\"num_streams\":5",
                         "\"antialiased\":false", "\"has_extensions\":false"] {
            #expect(text.contains(fragment), "\(fragment) in \(text)")
        }
        let details = try Hardening.json(run.out.bytes)["details"] as? [String: Any]
        #expect(details?["fractional_bits"] is NSNumber)
        #expect(!(details?["antialiased"] is String))
        let antialiased = Hardening.runInProcess(["info", "--json", Fixtures.vector("sh1-ext-v4.spz")])
        let flagged = antialiased.out.text.replacingOccurrences(of: "\": ", with: "\":")
        #expect(flagged.contains("\"has_extensions\":true") && flagged.contains("\"antialiased\":true"), "\(flagged)")
    }

    /// A batch over a good and a truncated SPZ with `extra` options.
    static func failingBatch(_ tag: String, _ extra: [String]) throws -> (status: Int32, out: CapturedOutput, err: CapturedOutput) {
        let batch = try Hardening.batchFolder(tag, [("a.spz", Hardening.tiny), ("b.spz", Fixtures.vector("bad-v4-truncated.spz"))])
        return Hardening.runInProcess(["thumbnails", batch.input.path, "--out-dir", batch.out.path, "--resolution", "8x8"] + extra)
    }

    /// With `--progress json` a failure is one more NDJSON event, not a bare `error:` line.
    @Test func progressJSONReportsFailuresAsEvents() throws {
        let run = try Self.failingBatch("progress-json", ["--progress", "json"])
        #expect(run.status == 2)
        let events = try Hardening.jsonLines(run.err.text)
        let failed = events.filter { $0["stage"] as? String == "failed" }
        #expect(failed.count == 1)
        let input = failed.first?["input"] as? String
        #expect(input?.hasSuffix("b.spz") == true)
        #expect((failed.first?["error"] as? [String: Any])?["kind"] as? String == "truncated")
        #expect(!run.err.text.contains("error:"))
    }

    /// With `--report -` standard output holds only report lines; the summary goes to stderr.
    @Test func batchSummaryGoesToStderrWhenLinesGoToStdout() throws {
        let run = try Self.failingBatch("summary", ["--report", "-"])
        #expect(run.status == 2)
        let lines = try Hardening.jsonLines(run.out.text)
        #expect(lines.count == 2)
        #expect(run.err.text.contains("2 inputs: 1 ok, 1 failed (1 truncated)"), "\(run.err.text)")
        #expect(!run.out.text.contains("inputs:"))
    }
}
