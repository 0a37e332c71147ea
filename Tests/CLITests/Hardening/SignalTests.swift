import Foundation
import Testing
import SplatCore
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, item 10: SIGTERM/SIGINT stop the work in flight, roll back its outputs, report it
/// `interrupted`, finalise the report and exit 143/130. Before, SIGTERM during `turntable` left
/// 18 frames and a `.tmp-` file, and during `thumbnails` a half-written input with no line.
@Suite struct HardeningSignalTests {
    /// Polls `condition` every 10 ms for up to `timeout`.
    static func eventually(_ timeout: Duration, _ condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + timeout
        while ContinuousClock.now < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }

    @Test func sigtermDuringTurntableLeavesNothing() throws {
        let dir = try Hardening.folder("sigterm")
        let frames = dir.appendingPathComponent("frames")
        let child = try ChildProcess(try Hardening.executable(), ["turntable", Hardening.fruit, "--out", frames.path,
                                                                  "--frames", "300", "--resolution", "32x32"],
                                     stdin: .null, stdout: .null, stderr: .null)
        defer { child.kill9() }
        let third = frames.appendingPathComponent("frame_002.png").path
        #expect(Self.eventually(.seconds(60)) { FileManager.default.fileExists(atPath: third) || !child.isRunning },
                "no frames appeared")
        try #require(child.isRunning, "ended before the signal: \(String(describing: child.termination))")
        child.send(SIGTERM)
        #expect(child.waitForExit(timeout: .seconds(20)))
        #expect(child.termination == .exited(143), "\(String(describing: child.termination))")
        #expect(Hardening.files(under: dir) == [], "left behind: \(Hardening.files(under: dir))")
    }

    @Test func sigintDuringABatchCommitsTheReport() throws {
        let (_, input, out, report) = try Hardening.batchFolder("sigint", (0..<6).map { ("f\($0).ply", Hardening.fruit) })
        let child = try ChildProcess(try Hardening.executable(), ["thumbnails", input.path, "--out-dir", out.path, "--jobs", "2",
                                                                  "--report", report, "--resolution", "96x96"],
                                     stdin: .null, stdout: .null, stderr: .null)
        defer { child.kill9() }
        // Once the first input has its line, the next ones are in flight.
        let partial = report + ".partial"
        #expect(Self.eventually(.seconds(60)) {
            ((try? Data(contentsOf: URL(fileURLWithPath: partial)))?.contains(10) ?? false) || !child.isRunning
        })
        try #require(child.isRunning, "ended before the signal: \(String(describing: child.termination))")
        child.send(SIGINT)
        #expect(child.waitForExit(timeout: .seconds(20)))
        #expect(child.termination == .exited(130), "\(String(describing: child.termination))")
        #expect(Hardening.kind(report) == .regular, "the report is committed")
        #expect(Hardening.kind(partial) == nil)
        let lines = try Hardening.reportLines(report)
        let names = lines.compactMap { ($0["input"] as? String).map { ($0 as NSString).lastPathComponent } }
        #expect(Set(names).count == names.count, "one line per input: \(names)")
        let interrupted = lines.filter { $0["status"] as? String == "interrupted" }
        #expect(!interrupted.isEmpty, "\(lines.map { $0["status"] ?? "" })")
        for line in lines {
            let stem = ((line["input"] as? String ?? "") as NSString).lastPathComponent.replacingOccurrences(of: ".ply", with: "")
            let image = out.appendingPathComponent(stem + ".png").path
            switch line["status"] as? String {
            case "ok": #expect(Hardening.kind(image) == .regular, "\(stem)")
            case "interrupted":
                #expect(line["exit_code"] as? Int == 130)
                #expect(Hardening.kind(image) == nil, "\(stem) kept an output")
            default: Issue.record("unexpected line \(line)")
            }
        }
        #expect(Hardening.temporaries(under: out).isEmpty)
    }

    /// `kill -9` cannot be handled: the next batch into the same folder removes the temporaries
    /// older than itself, not one that a run started since is still writing.
    @Test func nextBatchRemovesStaleTemporaries() throws {
        let dir = try Hardening.folder("stale")
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let stale = out.appendingPathComponent(".x.png.tmp-ABCDEF"), staleDeep = out.appendingPathComponent("sub/.y.png.tmp-a1B2c3")
        let fresh = out.appendingPathComponent(".z.png.tmp-GHIJKL")
        let unrelated = [out.appendingPathComponent(".notes.tmp-ABC"), out.appendingPathComponent("keep.png")]
        for url in [stale, staleDeep, fresh] + unrelated { try Data("x".utf8).write(to: url) }
        let hourAgo = Date(timeIntervalSinceNow: -3600)
        for url in [stale, staleDeep] + unrelated {
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: url.path)
        }
        // Written after the batch started (by another run): its time lies ahead of the start.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: fresh.path)
        let run = Hardening.runInProcess(["thumbnails", Hardening.tiny, "--out-dir", out.path, "--resolution", "8x8"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(Hardening.files(under: out) == [".notes.tmp-ABC", ".z.png.tmp-GHIJKL", "keep.png", "minimal-v4.png"],
                "\(Hardening.files(under: out))")
    }
}
