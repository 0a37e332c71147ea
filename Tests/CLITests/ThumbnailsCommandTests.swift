import Foundation
import Testing
import SplatService
import SplatCore
import SplatFormats
import SplatImage
import TestSupport
@testable import SplatRenderCLI

@Suite struct ThumbnailsCommandTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path

    /// good: fruit.ply and a tiny SPZ; bad: a truncated SPZ, a text file named .ply, and
    /// biker.spz over a 2 MB ceiling.
    static func folder(_ tag: String) throws -> URL {
        let dir = try Fixtures.temporaryDirectory(tag)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fruit, toPath: input.appendingPathComponent("fruit.ply").path)
        try FileManager.default.copyItem(atPath: Fixtures.vector("minimal-v4.spz"), toPath: input.appendingPathComponent("tiny.spz").path)
        try FileManager.default.copyItem(atPath: Fixtures.sampleScenes.appendingPathComponent("biker.spz").path,
                                         toPath: input.appendingPathComponent("big.spz").path)
        let spz = try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v4.spz")))
        try spz.prefix(spz.count - 9).write(to: input.appendingPathComponent("cut.spz"))
        try Data("plain text\n".utf8).write(to: input.appendingPathComponent("notes.ply"))
        return dir
    }

    static let options = ["--resolution", "32x24", "--sh-degree", "0", "--max-decoded-bytes", "2M"]

    @Test func mixedFolderExits2WithALinePerInput() throws {
        let dir = try Self.folder("cli-thumbs")
        let out = dir.appendingPathComponent("out").path
        let reportPath = dir.appendingPathComponent("report.jsonl").path
        let run = runCLI(["thumbnails", dir.appendingPathComponent("in").path, "--out-dir", out, "--jobs", "2",
                          "--report", reportPath] + Self.options)
        #expect(run.status == 2)
        let lines = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(lines.count == 5)
        var status: [String: (String, Int)] = [:]
        for line in lines {
            let name = ((line["input"] as? String ?? "") as NSString).lastPathComponent
            status[name] = (line["status"] as? String ?? "", line["exit_code"] as? Int ?? -1)
        }
        #expect(status["fruit.ply"]! == ("ok", 0))
        #expect(status["tiny.spz"]! == ("ok", 0))
        #expect(status["big.spz"]! == ("too_large", 75))
        #expect(status["cut.spz"]! == ("truncated", 65))
        #expect(status["notes.ply"]! == ("bad_magic", 65))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["fruit.png", "tiny.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["in", "out", "report.jsonl"])
        // stdout: one line per good input and the summary; stderr: one error line per bad input.
        #expect(run.out.text.hasSuffix("5 inputs: 2 ok, 3 failed (1 bad_magic, 1 too_large, 1 truncated)\n"))
        #expect(run.out.text.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 2)
        #expect(run.err.text.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count == 3)
        let image = try PNGReader.read(path: out + "/fruit.png")
        #expect(image.width == 32 && image.height == 24)
    }

    @Test func pathsFromStdinAndLinesOnStdout() throws {
        let dir = try Self.folder("cli-thumbs-stdin")
        let input = dir.appendingPathComponent("in")
        let out = dir.appendingPathComponent("out").path
        let list = [input.appendingPathComponent("tiny.spz").path, "", input.appendingPathComponent("fruit.ply").path]
            .joined(separator: "\n") + "\n"
        let run = runCLI(["thumbnails", "--from-stdin", "--out-dir", out, "--report", "-"] + Self.options,
                         stdin: Array(list.utf8))
        #expect(run.status == 0, "\(run.err.text)")
        let lines = run.out.text.split(separator: "\n")
        #expect(lines.count == 2)
        let indices = try lines.map { try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["index"] as? Int) }
        #expect(Set(indices) == [0, 1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["fruit.png", "tiny.png"])
        // The thumbnail is the plain render's automatic view.
        let single = dir.appendingPathComponent("single.png").path
        #expect(runCLI([Self.fruit, "--out", single, "--resolution", "32x24", "--sh-degree", "0"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: single)) == Data(contentsOf: URL(fileURLWithPath: out + "/fruit.png")))
    }

    @Test func batchUsageProblems() throws {
        let dir = try Fixtures.temporaryDirectory("cli-thumbs-usage")
        #expect(runCLI(["thumbnails", Self.fruit]).status == 64)
        let none = runCLI(["thumbnails", "--out-dir", dir.path])
        #expect(none.status == 64 && none.err.text.contains("at least one input"))
        #expect(runCLI(["thumbnails", "-", "--out-dir", dir.path]).status == 64)
        let blocked = dir.appendingPathComponent("file")
        try Data().write(to: blocked)
        let cannot = runCLI(["thumbnails", Self.fruit, "--out-dir", blocked.path + "/sub"])
        #expect(cannot.status == 73)
    }
}

@Suite struct PipeTests {
    @Test func stdinToStdoutGivesTheBytesOfFileToFile() throws {
        let dir = try Fixtures.temporaryDirectory("cli-pipe")
        let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
        let file = dir.appendingPathComponent("fruit.png").path
        let options = ["--resolution", "40x30", "--sh-degree", "1"]
        #expect(runCLI([fruit, "--out", file] + options).status == 0)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fruit)))
        let piped = runCLI(["-", "--out", "-"] + options, stdin: bytes)
        #expect(piped.status == 0, "\(piped.err.text)")
        #expect(piped.out.bytes == (try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))))
        // Diagnostics only on stderr, nothing but the PNG on stdout.
        #expect(piped.err.text == "wrote PNG to standard output: 40x30 RGBA, 4721 splats\n")
    }
}
