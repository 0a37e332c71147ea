import Foundation
import Testing
import SplatService
import SplatCore
import SplatFormats
import SplatImage
import TestSupport
@testable import SplatRenderCLI

@Suite struct TurntableCommandTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let small = ["--resolution", "48x40", "--sh-degree", "0"]

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func frameZeroEqualsRenderWithTheSameCamera() throws {
        let dir = try Fixtures.temporaryDirectory("cli-turntable")
        let frames = dir.appendingPathComponent("frames").path
        let reportPath = dir.appendingPathComponent("tt.json").path
        let run = runCLI(["turntable", Self.fruit, "--out", frames, "--frames", "4", "--report", reportPath] + Self.small)
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.out.text.hasPrefix("wrote 4 frames to \(frames) (48x40 RGBA)"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: frames).sorted() ==
                ["frame_000.png", "frame_001.png", "frame_002.png", "frame_003.png"])
        let frame0 = try [UInt8](Data(contentsOf: URL(fileURLWithPath: frames + "/frame_000.png")))

        // render with the camera the report gives for frame 0, written back as options.
        let camera = try #require(try Self.json(reportPath)["camera"] as? [String: Any])
        func option(_ key: String) throws -> String {
            try #require(camera[key] as? [NSNumber]).map { String($0.doubleValue) }.joined(separator: ",")
        }
        let single = dir.appendingPathComponent("single.png").path
        let render = runCLI([Self.fruit, "--out", single, "--camera-pos", try option("position"),
                             "--camera-target", try option("target"), "--camera-up", try option("up")] + Self.small)
        #expect(render.status == 0, "\(render.err.text)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: single))) == frame0)
        // The default orbit starts at the automatic view, so a plain render is frame 0 too.
        let plain = dir.appendingPathComponent("plain.png").path
        #expect(runCLI([Self.fruit, "--out", plain] + Self.small).status == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: plain))) == frame0)
        // A different start azimuth moves frame 0.
        let turned = dir.appendingPathComponent("turned").path
        #expect(runCLI(["turntable", Self.fruit, "--out", turned, "--frames", "1", "--azimuth", "100"] + Self.small).status == 0)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: turned + "/frame_000.png"))) != frame0)
    }

    @Test func sheetAndAnimationFromOneDecode() throws {
        let dir = try Fixtures.temporaryDirectory("cli-turntable-sheet")
        let sheet = dir.appendingPathComponent("sheet.png").path
        let webp = dir.appendingPathComponent("preview.webp").path
        let run = runCLI(["turntable", Self.fruit, "--frames", "4", "--sheet", sheet, "--sheet-views", "4",
                          "--sheet-downscale", "4", "--animation", webp, "--frame-ms", "50", "--animation-quality", "80",
                          "--json"] + Self.small)
        #expect(run.status == 0, "\(run.err.text)")
        let report = try jsonObject(run.out)
        #expect(report["command"] as? String == "turntable")
        // The four sheet views are the four frames: four renders in all.
        #expect((report["render_stats"] as? [String: Any])?["views"] as? Int == 4)
        #expect((report["sheet"] as? [String: Any])?["downscale"] as? Int == 4)
        let image = try PNGReader.read(path: sheet)
        #expect(image.width == 4 * 12 && image.height == 10)
        let animation = try AnimatedWebPReader.read(path: webp)
        #expect(animation.frameCount == 4 && animation.durationsMs == [50, 50, 50, 50])
        #expect(animation.canvasWidth == 48 && animation.canvasHeight == 40)
        let outputs = try #require(report["outputs"] as? [[String: Any]])
        #expect(outputs.compactMap { $0["role"] as? String } == ["sheet", "animation"])
        #expect(outputs.last?["lossless"] as? Bool == false)
    }

    @Test func usageProblemsExit64() throws {
        let dir = try Fixtures.temporaryDirectory("cli-turntable-usage")
        let noOutput = runCLI(["turntable", Self.fruit])
        #expect(noOutput.status == 64)
        #expect(noOutput.err.text.hasPrefix("error: turntable needs an output"))
        let tooMany = runCLI(["turntable", Self.fruit, "--out", dir.path, "--frames", "3601"])
        #expect(tooMany.status == 64)
        #expect(tooMany.err.text.contains("from 1 to 3600"))
        let toStdout = runCLI(["turntable", Self.fruit, "--sheet", "-"])
        #expect(toStdout.status == 64)
        let wrongCommand = runCLI(["turntable", Self.fruit, "--out", dir.path, "--camera-pos", "1,2,3"])
        #expect(wrongCommand.status == 64)
        #expect(wrongCommand.err.text.contains("does not apply to turntable"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func timeoutExits124AndRemovesTheFrames() throws {
        let dir = try Fixtures.temporaryDirectory("cli-turntable-timeout")
        let frames = dir.appendingPathComponent("frames").path
        let reportPath = dir.appendingPathComponent("r.json").path
        let run = runCLI(["turntable", Self.fruit, "--out", frames, "--frames", "3", "--timeout", "0.001",
                          "--report", reportPath] + Self.small)
        #expect(run.status == 124)
        #expect(run.err.text.hasPrefix("error: timeout: deadline of 0.001 s expired"))
        #expect(!FileManager.default.fileExists(atPath: frames))
        let report = try Self.json(reportPath)
        #expect(report["status"] as? String == "timeout" && report["exit_code"] as? Int == 124)
    }

    @Test func progressJSONGoesToStderrOnlyWhenAskedFor() throws {
        let dir = try Fixtures.temporaryDirectory("cli-turntable-progress")
        let frames = dir.appendingPathComponent("f").path
        let tiny = Fixtures.vector("tiny-3dgs-le.ply")
        let silent = runCLI(["turntable", tiny, "--out", frames, "--frames", "2", "--resolution", "8x8", "-q"])
        #expect(silent.status == 0)
        #expect(silent.err.bytes.isEmpty && silent.out.bytes.isEmpty)
        let run = runCLI(["turntable", tiny, "--out", frames, "--frames", "3", "--resolution", "8x8", "-q", "--progress", "json"])
        #expect(run.status == 0, "\(run.err.text)")
        let events = try run.err.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(events.first?["stage"] as? String == "decode" && events.first?["done"] as? Int == 0)
        let renders = events.filter { $0["stage"] as? String == "render" }
        #expect(renders.compactMap { $0["done"] as? Int } == [1, 2, 3])
        #expect(renders.allSatisfy { $0["total"] as? Int == 3 && $0["ms"] is NSNumber && $0["input"] as? String == tiny })
    }
}
