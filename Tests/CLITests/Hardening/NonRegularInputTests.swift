import Foundation
import Testing
import SplatCore
import TestSupport

/// Issue 12, item 1: only regular files are read. Before, `/dev/zero` aborted the process at a
/// 4 GiB allocation (one such link in a batch folder ended the whole batch), and a FIFO hung it
/// forever. These run the executable: the old failures were a SIGABRT and a hang.
@Suite struct HardeningNonRegularInputTests {
    @Test func devZeroIsRefusedAtOnce() throws {
        let dir = try Hardening.folder("devzero")
        let run = try Hardening.run(["/dev/zero", "--out", dir.appendingPathComponent("x.png").path], in: dir,
                                    timeout: .seconds(30))
        #expect(run.termination == .exited(66), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("not a regular file"))
        #expect(run.seconds < 10, "took \(run.seconds) s")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.png").path))
    }

    @Test func fifoWithoutWriterIsRefusedWithoutWaiting() throws {
        let dir = try Hardening.folder("fifo-in")
        let fifo = dir.appendingPathComponent("scene.ply").path
        try Hardening.makeFIFO(fifo)
        // No writer ever opens the FIFO: a blocking open or read would hang until the bound.
        let run = try Hardening.run([fifo, "--out", dir.appendingPathComponent("x.png").path, "--resolution", "8x8"], in: dir,
                                    timeout: .seconds(20))
        #expect(run.termination == .exited(66), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("not a regular file (a fifo)"))
        #expect(run.seconds < 10, "took \(run.seconds) s")
    }

    @Test func batchReportsEachSpecialFileAndGoesOn() throws {
        let (dir, input, out, report) = try Hardening.batchFolder("special-batch", [("a.spz", Hardening.tiny), ("zz.ply", Hardening.fruit)])
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("z.spz").path, withDestinationPath: "/dev/zero")
        try Hardening.makeFIFO(input.appendingPathComponent("f.ply").path)
        let run = try Hardening.run(["thumbnails", input.path, "--out-dir", out.path, "--report", report,
                                     "--resolution", "16x16", "--sh-degree", "0"], in: dir, timeout: .seconds(60))
        #expect(run.termination == .exited(2), "\(String(describing: run.termination)): \(run.errText)")
        let lines = try Hardening.reportLines(report)
        #expect(lines.count == 4)
        let status = Hardening.statusByName(lines)
        #expect(status == ["a.spz": "ok", "z.spz": "io", "f.ply": "io", "zz.ply": "ok"])
        for line in lines where line["status"] as? String == "io" {
            #expect((line["message"] as? String ?? "").contains("not a regular file"), "\(line["message"] ?? "")")
            #expect(line["exit_code"] as? Int == 66)
        }
        // The inputs after the special files were still processed.
        #expect(Hardening.files(under: out) == ["a.png", "zz.png"])
    }

    /// An unbundled SOG whose meta.json names an image that is a FIFO, or a link to /dev/zero.
    @Test(arguments: ["fifo", "devzero"])
    func sogImageThatIsNotARegularFile(_ what: String) throws {
        let dir = try Hardening.folder("sog-\(what)")
        let scene = dir.appendingPathComponent("scene")
        try FileManager.default.createDirectory(at: scene, withIntermediateDirectories: true)
        let source = Fixtures.corpus.appendingPathComponent("sog/playbot-lod4")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name != "sh0.webp" {
            try Hardening.copy(source.appendingPathComponent(name).path, to: scene.appendingPathComponent(name))
        }
        let image = scene.appendingPathComponent("sh0.webp").path
        if what == "fifo" {
            try Hardening.makeFIFO(image)
        } else {
            try FileManager.default.createSymbolicLink(atPath: image, withDestinationPath: "/dev/zero")
        }
        let run = try Hardening.run([scene.appendingPathComponent("meta.json").path, "--out", dir.appendingPathComponent("x.png").path,
                                     "--resolution", "8x8"], in: dir, timeout: .seconds(30))
        #expect(run.termination == .exited(66), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("error: io: not a regular file"), "\(run.errText)")
        #expect(run.errText.contains("sh0.webp"))
        #expect(run.seconds < 10, "took \(run.seconds) s")
    }
}
