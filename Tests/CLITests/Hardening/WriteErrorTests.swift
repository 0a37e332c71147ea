import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatRenderCLI
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, item 5: a write to standard output that fails is an error (74 with a message).
/// Before, `info --json >/dev/full` and `thumbnails --report - >/dev/full` exited 0 with the
/// results lost, and `--out - | head -c 10` died of SIGPIPE (141) without a word.
@Suite struct HardeningWriteErrorTests {
    @Test func infoJSONToAFullDevice() throws {
        let dir = try Hardening.folder("full-info")
        let run = try Hardening.run(["info", "--json", Hardening.tiny], in: dir, stdout: .file("/dev/full"), timeout: .seconds(30))
        #expect(run.termination == .exited(74), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("cannot write to standard output: No space left on device"), "\(run.errText)")
        // The same through the in-process sink that fails like a full disk.
        let inProcess = Hardening.runInProcess(["info", "--json", Hardening.tiny], stdout: CapturedOutput(failing: true))
        #expect(inProcess.status == 74)
    }

    @Test func batchReportLinesToAFullDevice() throws {
        let dir = try Hardening.folder("full-thumbs")
        let run = try Hardening.run(["thumbnails", Hardening.tiny, "--out-dir", dir.appendingPathComponent("out").path,
                                     "--report", "-", "--resolution", "8x8"], in: dir, stdout: .file("/dev/full"), timeout: .seconds(30))
        #expect(run.termination == .exited(74), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("No space left on device"), "\(run.errText)")
    }

    /// `--out - | head -c 10`: the reader takes ten bytes and goes. The pipe holds one page, so
    /// the 20 KB PNG cannot slip into it before the reader leaves.
    @Test func imageToAReaderThatGoesAway() throws {
        let child = try ChildProcess(try Hardening.executable(), [Hardening.fruit, "--out", "-", "--resolution", "128x128"],
                                     stdin: .null, stdout: .pipe, stderr: .pipe, pipeBufferBytes: 4096)
        let first = child.readOutput(10, timeout: .seconds(60))
        #expect(first.count == 10)
        #expect(first.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG signature")
        child.closeOutput()
        #expect(child.waitForExit(timeout: .seconds(30)))
        #expect(child.termination == .exited(74), "\(String(describing: child.termination)), not death by SIGPIPE")
        var stderr = [UInt8](repeating: 0, count: 4096)
        let n = read(child.stderrFD, &stderr, stderr.count)
        let text = String(decoding: stderr.prefix(max(0, n)), as: UTF8.self)
        #expect(text.contains("Broken pipe"), "\(text)")
    }
}
