import Foundation
import Testing
import SplatCore
import TestSupport

/// Issue 12, item 6: a report's final name only ever holds a complete report. Before, a full
/// disk left `r.jsonl` with five lines and a torn sixth under its final name; and an input named
/// `r.jsonl.spz` could take the report's name in the output folder.
@Suite struct HardeningReportIntegrityTests {
    /// `ulimit -f 8` (8 KiB per file): the images (about 300 bytes each) fit, the report of ten
    /// inputs (about 2 KB a line) does not.
    @Test func reportUnderAFileSizeLimit() throws {
        let (dir, input, out, _) = try Hardening.batchFolder("ulimit", (0..<10).map { ("s\($0).spz", Hardening.tiny) })
        let report = out.appendingPathComponent("r.jsonl").path
        let run = try Hardening.run(["-c", "ulimit -f 8; exec \"$0\" \"$@\"", try Hardening.executable(),
                                     "thumbnails", input.path, "--out-dir", out.path, "--report", report, "--resolution", "8x8"],
                                    in: dir, timeout: .seconds(60), executable: "/bin/bash")
        #expect(run.termination == .exited(73), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("File too large"), "\(run.errText)")
        #expect(!FileManager.default.fileExists(atPath: report), "the final name holds only a complete report")
        let partial = try Data(contentsOf: URL(fileURLWithPath: report + ".partial"))
        #expect(partial.last == UInt8(ascii: "\n"), "no torn last line")
        let lines = try Hardening.jsonLines(String(decoding: partial, as: UTF8.self))
        #expect(lines.count >= 1 && lines.count < 10, "\(lines.count) complete lines")
        #expect(partial.count <= 8192)
    }

    /// The report inside the output folder reserves its name: the frames of `r.jsonl.spz` do
    /// not become a folder `r.jsonl/` that the report's rename would then fail on.
    @Test func reportNameIsReservedInTheOutputFolder() throws {
        let dir = try Hardening.folder("reserved")
        let input = dir.appendingPathComponent("r.jsonl.spz"), out = dir.appendingPathComponent("out")
        try Hardening.copy(Hardening.tiny, to: input)
        let report = out.appendingPathComponent("r.jsonl").path
        let run = Hardening.runInProcess(["thumbnails", input.path, "--out-dir", out.path, "--report", report,
                                          "--turntable", "2", "--resolution", "8x8"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(Hardening.kind(report) == .regular)
        let lines = try Hardening.reportLines(report)
        #expect(lines.count == 1)
        let outputs = (lines.first?["outputs"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(!outputs.isEmpty)
        for path in outputs {
            #expect(!path.hasPrefix(report + "/") && path != report, "\(path) takes the report's name")
        }
        #expect(Hardening.files(under: out).allSatisfy { !$0.hasPrefix("r.jsonl/") })
    }
}
