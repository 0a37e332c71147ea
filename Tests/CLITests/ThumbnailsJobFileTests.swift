import Foundation
import Testing
import SplatService
import SplatCore
import TestSupport
@testable import SplatRenderCLI

/// `thumbnails --job-file` (the fleet's job schema, one job per line) and `--shard K/N`.
@Suite struct ThumbnailsJobFileTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let tiny = Fixtures.vector("minimal-v4.spz")

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func eachLineIsAJobWithItsReportLineAndTheCommandLinesBytes() throws {
        let dir = try Fixtures.temporaryDirectory("cli-jobfile")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out").path
        let jobs = [
            #"{"id": "fruit", "input": "file://\#(Self.fruit)", "options": {"resolution": "40x30", "sh-degree": 0},"#
                + #" "outputs": [{"kind": "image", "to": "file://\#(out)/fruit/thumb.png"},"#
                + #" {"kind": "sheet", "to": "file://\#(out)/fruit/sheet.jpg", "sheet-views": 3, "quality": 80}]}"#,
            "",
            #"{"id": "tiny", "input": "file://\#(Self.tiny)", "outputs": [{"kind": "animation", "to": "file://\#(out)/tiny.webp","#
                + #" "frames": 3, "resolution": "24x24"}]}"#,
            #"{"id": "typo", "input": "file://\#(Self.tiny)", "outputs": [{"kind": "image", "to": "file://\#(out)/t.png", "resolutoin": "8x8"}]}"#,
        ]
        let file = dir.appendingPathComponent("jobs.jsonl").path
        try Data(jobs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        let reportPath = dir.appendingPathComponent("report.jsonl").path
        let run = runCLI(["thumbnails", "--job-file", file, "--report", reportPath, "--jobs", "2"])
        #expect(run.status == 2, "\(run.err.text)")
        let lines = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        var byID: [String: [String: Any]] = [:]
        for line in lines { byID[line["id"] as? String ?? "?"] = line }
        #expect(lines.count == 3 && Set(byID.keys) == ["fruit", "tiny", "typo"])
        #expect(byID["fruit"]?["status"] as? String == "ok" && byID["fruit"]?["index"] as? Int == 0)
        #expect(byID["tiny"]?["status"] as? String == "ok" && byID["tiny"]?["index"] as? Int == 1)
        #expect(byID["typo"]?["status"] as? String == "bad_job" && byID["typo"]?["exit_code"] as? Int == 64)
        let outputs = (byID["fruit"]?["outputs"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(outputs == ["file://\(out)/fruit/thumb.png", "file://\(out)/fruit/sheet.jpg"])
        #expect(run.out.text.hasSuffix("3 inputs: 2 ok, 1 failed (1 bad_job)\n"))

        // The same outputs from the plain commands.
        let plain = dir.appendingPathComponent("plain").path
        #expect(runCLI([Self.fruit, "--out", plain + ".png", "--resolution", "40x30", "--sh-degree", "0"]).status == 0)
        #expect(runCLI(["turntable", Self.fruit, "--sheet", plain + ".sheet.jpg", "--sheet-views", "3", "--quality", "80",
                        "--resolution", "40x30", "--sh-degree", "0"]).status == 0)
        #expect(runCLI(["turntable", Self.tiny, "--animation", plain + ".webp", "--frames", "3", "--resolution", "24x24"]).status == 0)
        #expect(try Self.bytes(out + "/fruit/thumb.png") == Self.bytes(plain + ".png"))
        #expect(try Self.bytes(out + "/fruit/sheet.jpg") == Self.bytes(plain + ".sheet.jpg"))
        #expect(try Self.bytes(out + "/tiny.webp") == Self.bytes(plain + ".webp"))
        #expect(!FileManager.default.fileExists(atPath: out + "/t.png"))
    }

    @Test func jobFileUsage() throws {
        let dir = try Fixtures.temporaryDirectory("cli-jobfile-usage")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("jobs.jsonl").path
        try Data().write(to: URL(fileURLWithPath: file))
        let withDir = runCLI(["thumbnails", "--job-file", file, "--out-dir", dir.path])
        #expect(withDir.status == 64 && withDir.err.text.contains("--out-dir does not apply to --job-file"))
        let withOption = runCLI(["thumbnails", "--job-file", file, "--resolution", "8x8"])
        #expect(withOption.status == 64 && withOption.err.text.contains("--resolution does not apply to --job-file"))
        #expect(runCLI(["thumbnails", "--job-file", file, Self.fruit]).status == 64)
        #expect(runCLI(["thumbnails", "--job-file", dir.path + "/missing.jsonl"]).status == 66)
        let empty = runCLI(["thumbnails", "--job-file", file])
        #expect(empty.status == 0 && empty.err.text.contains("no jobs in"))
    }

    @Test func shardsPartitionTheInputsByRelativePath() throws {
        let dir = try Fixtures.temporaryDirectory("cli-shard")
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in")
        let relative = ["a.spz", "b.spz", "c.spz", "d.spz", "e.spz", "sub/f.spz", "sub/g.spz", "sub/h.spz"]
        for name in relative {
            let target = input.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.tiny, toPath: target.path)
        }
        var union: [String] = []
        for k in 1...3 {
            let out = dir.appendingPathComponent("out\(k)").path
            let run = runCLI(["thumbnails", input.path, "--out-dir", out, "--shard", "\(k)/3", "--resolution", "8x8", "-q"])
            #expect(run.status == 0, "\(run.err.text)")
            let made = (FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".png") }.sorted()
            let expected = relative.filter { ShardSelector.shard(of: $0, count: 3) == k }
                .map { ($0 as NSString).deletingPathExtension + ".png" }
            #expect(made == expected, "shard \(k)")
            union += made
        }
        #expect(union.sorted() == relative.map { ($0 as NSString).deletingPathExtension + ".png" }.sorted())
        #expect(Set(relative.map { ShardSelector.shard(of: $0, count: 3) }).count == 3, "every shard has work")
        let bad = runCLI(["thumbnails", input.path, "--out-dir", dir.path + "/x", "--shard", "4/3"])
        #expect(bad.status == 64 && bad.err.text.contains("--shard: K must be 1…3"))
    }
}
