import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatRenderCLI
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, item 4: outputs never clobber what is not ours. Before, the atomic rename replaced
/// a device or FIFO node with the PNG (as root `--out /dev/null` replaced the system's
/// /dev/null), `--out` onto the input overwrote the scene, and a missing folder was found only
/// after a full decode and render.
@Suite struct HardeningOutputTests {
    static let small = ["--resolution", "8x8", "--sh-degree", "0"]

    /// A character device of our own. As root the test makes one (the null device's numbers) in
    /// its folder rather than aiming at /dev/null: if the guard ever broke again, the test must
    /// not replace the system's /dev/null for everything else on the machine. Without root the
    /// rename could not replace /dev/null anyway, so it is the device used.
    static func characterDevice(in dir: URL) throws -> String {
        guard geteuid() == 0 else { return "/dev/null" }
        // Named .png: an image path must say its format before anything else is looked at.
        let path = dir.appendingPathComponent("null-device.png").path
        try #require(mknod(path, S_IFCHR | 0o666, (1 << 8) | 3) == 0, "mknod: \(String(cString: strerror(errno)))")
        return path
    }

    @Test func characterDeviceIsNotReplaced() throws {
        let dir = try Hardening.folder("out-chardev")
        let device = try Self.characterDevice(in: dir)
        let run = Hardening.runInProcess([Hardening.tiny, "--out", device] + Self.small)
        #expect(run.status == 73, "\(run.err.text)")
        #expect(run.err.text.contains("not a regular file (a character device)"))
        #expect(Hardening.kind(device) == .characterDevice)
        #expect(Hardening.kind("/dev/null") == .characterDevice)
        #expect(Hardening.files(under: dir).filter { $0.contains(".tmp-") }.isEmpty)
    }

    /// `--report` is an output too: a device or FIFO there is refused, not replaced.
    @Test(arguments: ["render", "thumbnails"])
    func reportOntoADeviceOrFIFOIsRefused(_ command: String) throws {
        let dir = try Hardening.folder("out-report-\(command)")
        let device = try Self.characterDevice(in: dir)
        let fifo = dir.appendingPathComponent("fifo.json").path
        try Hardening.makeFIFO(fifo)
        for (target, kind) in [(device, FileStatus.Kind.characterDevice), (fifo, .fifo)] {
            let arguments = command == "render"
                ? [Hardening.tiny, "--out", dir.appendingPathComponent("x.png").path, "--report", target]
                : ["thumbnails", Hardening.tiny, "--out-dir", dir.appendingPathComponent("out").path, "--report", target]
            let run = Hardening.runInProcess(arguments + Self.small)
            #expect(run.status == 73, "\(command) --report \(target): \(run.status) \(run.err.text)")
            #expect(run.err.text.contains("not a regular file"), "\(run.err.text)")
            #expect(Hardening.kind(target) == kind, "\(target) was replaced")
        }
        #expect(Hardening.kind("/dev/null") == .characterDevice)
        // Refused before the job: no image was written either.
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
        #expect(Hardening.files(under: dir.appendingPathComponent("out")).isEmpty)
    }

    @Test func fifoOutputIsRefused() throws {
        let dir = try Hardening.folder("out-fifo")
        let fifo = dir.appendingPathComponent("x.png").path
        try Hardening.makeFIFO(fifo)
        let run = Hardening.runInProcess([Hardening.tiny, "--out", fifo] + Self.small)
        #expect(run.status == 73, "\(run.err.text)")
        #expect(run.err.text.contains("not a regular file (a fifo)"))
        #expect(Hardening.kind(fifo) == .fifo)
    }

    /// The input itself, by the same path, a hard link or a symbolic link: refused (64) and the
    /// scene is unchanged. The input is a PLY named `.png` so that `render` would write it.
    @Test func theInputIsNeverAnOutput() throws {
        let dir = try Hardening.folder("out-input")
        let input = dir.appendingPathComponent("scene.png")
        try Hardening.copy(Hardening.fruit, to: input)
        let original = try Data(contentsOf: input)
        let hard = dir.appendingPathComponent("hard.png").path, soft = dir.appendingPathComponent("soft.png").path
        try FileManager.default.linkItem(atPath: input.path, toPath: hard)
        try FileManager.default.createSymbolicLink(atPath: soft, withDestinationPath: input.path)
        let relative = input.path.replacingOccurrences(of: dir.path, with: dir.path + "/./")
        for out in [input.path, relative, hard, soft] {
            let run = Hardening.runInProcess([input.path, "--out", out] + Self.small)
            #expect(run.status == 64, "--out \(out): \(run.status) \(run.err.text)")
            #expect(run.err.text.contains("is the input"), "\(run.err.text)")
        }
        // convert's output path too (SPZ in, the same SPZ out).
        let spz = dir.appendingPathComponent("scene.spz").path
        try Hardening.copy(Hardening.tiny, to: URL(fileURLWithPath: spz))
        let spzBytes = try Data(contentsOf: URL(fileURLWithPath: spz))
        let convert = Hardening.runInProcess(["convert", spz, spz])
        #expect(convert.status == 64, "\(convert.err.text)")
        #expect(try Data(contentsOf: input) == original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: spz)) == spzBytes)
        #expect(Hardening.kind(soft) == .symbolicLink)
    }

    /// A missing folder is found before the scene is decoded: biker.spz takes seconds to render
    /// in a debug build; the refusal takes milliseconds and the report has no header facts.
    @Test func missingFolderFailsBeforeDecoding() throws {
        let dir = try Hardening.folder("out-missing")
        let missing = dir.appendingPathComponent("no/such/folder")
        let start = ContinuousClock.now
        let run = Hardening.runInProcess([Hardening.biker, "--out", missing.appendingPathComponent("x.png").path, "--report", "-"])
        let seconds = Hardening.seconds(since: start)
        #expect(run.status == 73, "\(run.err.text)")
        #expect(run.err.text.contains(missing.path), "the message names the folder: \(run.err.text)")
        let report = try Hardening.json(run.out.bytes)
        #expect(report["format"] is NSNull, "the header was not even read")
        #expect(report["decoded_count"] is NSNull)
        #expect((report["error"] as? [String: Any])?["stage"] as? String == "output")
        #expect(seconds < 2, "took \(seconds) s")
    }

    @Test func outputThatIsAFolderIsRefused() throws {
        let dir = try Hardening.folder("out-folder")
        let folder = dir.appendingPathComponent("x.png")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = Hardening.runInProcess([Hardening.tiny, "--out", folder.path] + Self.small)
        #expect(run.status == 73, "\(run.err.text)")
        #expect(run.err.text.contains("is a folder"))
        #expect(Hardening.kind(folder.path) == .directory)
    }

    /// `-` is standard output for `--report` too: stdout holds exactly the report (before, a
    /// file named `-` was written); `--out - --report -` cannot share it (64).
    @Test func reportDashIsStandardOutput() throws {
        let dir = try Hardening.folder("out-report-dash")
        let image = dir.appendingPathComponent("x.png").path
        let render = Hardening.runInProcess([Hardening.tiny, "--out", image, "--report", "-"] + Self.small)
        #expect(render.status == 0, "\(render.err.text)")
        let report = try Hardening.json(render.out.bytes)
        #expect(report["command"] as? String == "render")
        #expect(report["status"] as? String == "ok")

        let frames = dir.appendingPathComponent("frames").path
        let turntable = Hardening.runInProcess(["turntable", Hardening.tiny, "--out", frames, "--frames", "2", "--report", "-"] + Self.small)
        #expect(turntable.status == 0, "\(turntable.err.text)")
        let orbit = try Hardening.json(turntable.out.bytes)
        #expect(orbit["command"] as? String == "turntable")
        #expect((orbit["outputs"] as? [[String: Any]])?.first?["frames"] as? Int == 2)
        // Not a file named `-` in the working folder.
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"))

        let both = Hardening.runInProcess([Hardening.tiny, "--out", "-", "--report", "-"] + Self.small)
        #expect(both.status == 64)
        #expect(both.out.bytes.isEmpty)
    }

    @Test func binaryImageToATerminalIsRefused() {
        let terminal = CapturedOutput(terminal: true)
        let run = Hardening.runInProcess([Hardening.tiny, "--out", "-"] + Self.small, stdout: terminal)
        #expect(run.status == 64, "\(run.err.text)")
        #expect(run.err.text.contains("terminal"))
        #expect(terminal.bytes.isEmpty)
    }
}
