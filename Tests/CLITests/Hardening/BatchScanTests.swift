import Foundation
import Testing
import SplatCore
import TestSupport

/// Issue 12, item 11: the folder scan does not follow directory links (`ln -s .. loop` turned
/// 183 entries into 2,880 inputs; a link to `/` walked the file system), every matching entry
/// including a dangling link gets exactly one line, output names mirror the input tree (before,
/// collisions got `-2` names that depended on input order), and `--skip-existing` resumes.
@Suite struct HardeningBatchScanTests {
    static let small = ["--resolution", "8x8"]

    /// in/a/x.spz, in/b/x.spz, in/sub/c.spz, in/sub/loop → .., in/root → /, in/gone.spz → nothing.
    static func tree(_ tag: String) throws -> (dir: URL, input: URL) {
        let dir = try Hardening.folder(tag)
        let input = dir.appendingPathComponent("in")
        let fm = FileManager.default
        for folder in ["a", "b", "sub"] {
            try fm.createDirectory(at: input.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Hardening.copy(Hardening.tiny, to: input.appendingPathComponent("a/x.spz"))
        try Hardening.copy(Fixtures.vector("minimal-v3.spz"), to: input.appendingPathComponent("b/x.spz"))
        try Hardening.copy(Fixtures.vector("minimal-v2.spz"), to: input.appendingPathComponent("sub/c.spz"))
        try fm.createSymbolicLink(atPath: input.appendingPathComponent("sub/loop").path, withDestinationPath: "..")
        try fm.createSymbolicLink(atPath: input.appendingPathComponent("root").path, withDestinationPath: "/")
        try fm.createSymbolicLink(atPath: input.appendingPathComponent("gone.spz").path,
                                  withDestinationPath: dir.appendingPathComponent("nowhere/gone.spz").path)
        return (dir, input)
    }

    @Test func linksAreNotFollowedAndNamesMirrorTheTree() throws {
        let (dir, input) = try Self.tree("scan")
        let out = dir.appendingPathComponent("out"), report = dir.appendingPathComponent("r.jsonl").path
        let run = Hardening.runInProcess(["thumbnails", input.path, "--out-dir", out.path, "--report", report] + Self.small)
        #expect(run.status == 2, "\(run.err.text)")
        let lines = try Hardening.reportLines(report)
        let inputs = lines.compactMap { $0["input"] as? String }.map { String($0.dropFirst(input.path.count + 1)) }
        #expect(inputs.sorted() == ["a/x.spz", "b/x.spz", "gone.spz", "sub/c.spz"], "\(inputs)")
        let gone = lines.filter { ($0["input"] as? String ?? "").hasSuffix("gone.spz") }
        #expect(gone.count == 1)
        #expect(gone.first?["status"] as? String == "io")
        // Mirrored: the two x.spz do not collide, and no name depends on input order.
        #expect(Hardening.files(under: out) == ["a/x.png", "b/x.png", "sub/c.png"])
    }

    @Test func skipExistingRunsOnlyWhatIsMissing() throws {
        let (dir, input) = try Self.tree("skip")
        try FileManager.default.removeItem(at: input.appendingPathComponent("gone.spz"))
        let out = dir.appendingPathComponent("out")
        #expect(Hardening.runInProcess(["thumbnails", input.path, "--out-dir", out.path] + Self.small).status == 0)
        let kept = out.appendingPathComponent("a/x.png")
        let keptDate = try FileManager.default.attributesOfItem(atPath: kept.path)[.modificationDate] as? Date
        try FileManager.default.removeItem(at: out.appendingPathComponent("b/x.png"))
        let report = dir.appendingPathComponent("r.jsonl").path
        let run = Hardening.runInProcess(["thumbnails", input.path, "--out-dir", out.path, "--report", report,
                                          "--skip-existing"] + Self.small)
        #expect(run.status == 0, "\(run.err.text)")
        let status = try Hardening.reportLines(report).reduce(into: [String: String]()) {
            $0[String(($1["input"] as? String ?? "").dropFirst(input.path.count + 1))] = $1["status"] as? String
        }
        #expect(status == ["a/x.spz": "skipped", "b/x.spz": "ok", "sub/c.spz": "skipped"])
        #expect(Hardening.files(under: out) == ["a/x.png", "b/x.png", "sub/c.png"])
        #expect(try FileManager.default.attributesOfItem(atPath: kept.path)[.modificationDate] as? Date == keptDate)
        // Skipped inputs are not failures in the summary either.
        #expect(run.out.text.hasSuffix("3 inputs: 1 ok, 2 skipped\n"), "\(run.out.text)")
    }
}
