import Foundation
import Testing
import TestSupport

/// The real `splatrender serve` binary driven by curl. One at a time: each starts a debug
/// server that renders on both cores, and the timing bounds below assume it has them.
@Suite(.serialized) struct ServeEndToEndTests {}

extension ServeEndToEndTests {
    @Suite struct Routes {
        /// (scene, query, the command line's options for the same request).
        static func renderCases() throws -> [(URL, String, [String])] {
            [
                (TestScenes.spz, "resolution=96x80", ["--resolution", "96x80"]),
                (TestScenes.legacySPZ, "resolution=80x80&background=0.2,0.2,0.25", ["--resolution", "80x80", "--background", "0.2,0.2,0.25"]),
                (TestScenes.ply, "resolution=72x96&output=jpeg&background=1,0.5,0", ["--resolution", "72x96", "--out-format", "jpeg", "--background", "1,0.5,0"]),
                (TestScenes.ply, "resolution=64x64&output=jpeg", ["--resolution", "64x64", "--out-format", "jpeg"]),
                (TestScenes.sog, "resolution=64x64&camera-fov=55&sh-degree=0&flip=1", ["--resolution", "64x64", "--camera-fov", "55", "--sh-degree", "0", "--flip"]),
                (try TestScenes.splat(), "resolution=64x48&format=splat&output=webp", ["--resolution", "64x48", "--format", "splat", "--out-format", "webp"]),
            ]
        }

        @Test func renderAnswersTheCommandLinesBytes() throws {
            let cases = try Self.renderCases()
            try ServeProcess.with(["--workers", "2"]) { server in
                for (scene, query, arguments) in cases {
                    let served = try server.curl.request("POST", "/v1/render?" + query, bodyFile: scene)
                    #expect(served.status == 200, "\(query): \(served.text)")
                    let expected = try commandLineImage(scene.path, arguments)
                    #expect(served.body == expected, "\(scene.lastPathComponent) \(query): \(served.body.count) bytes, the CLI wrote \(expected.count)")
                    let type = query.contains("output=jpeg") ? "image/jpeg" : query.contains("output=webp") ? "image/webp" : "image/png"
                    #expect(served.headers["content-type"] == type)
                    let timing = served.headers["server-timing"] ?? ""
                    let stages = timing.split(separator: ",").map { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
                    #expect(stages == ["decode", "prepare", "render", "encode"], "Server-Timing: \(timing)")
                }
            }
        }

        @Test func sheetAndAnimationAnswerTheTurntablesFiles() throws {
            let dir = try Fixtures.temporaryDirectory("serve-turntable")
            defer { try? FileManager.default.removeItem(at: dir) }
            let sheetFile = dir.appendingPathComponent("sheet.png"), animationFile = dir.appendingPathComponent("turn.webp")
            let cli = Process()
            cli.executableURL = URL(fileURLWithPath: ServeProcess.binary)
            cli.arguments = ["turntable", TestScenes.spz.path, "--sheet", sheetFile.path, "--animation", animationFile.path,
                             "--resolution", "48x48", "--sheet-views", "3", "--frames", "4", "--animation-effort", "0", "--quiet"]
            try cli.run()
            cli.waitUntilExit()
            #expect(cli.terminationStatus == 0)
            try ServeProcess.with { server in
                let sheet = try server.curl.request("POST", "/v1/sheet?resolution=48x48&sheet-views=3", bodyFile: TestScenes.spz)
                #expect(sheet.status == 200, "\(sheet.text)")
                #expect(sheet.headers["content-type"] == "image/png")
                #expect(sheet.body == (try Data(contentsOf: sheetFile)))
                let animation = try server.curl.request("POST", "/v1/animation?resolution=48x48&frames=4&animation-effort=0", bodyFile: TestScenes.spz)
                #expect(animation.status == 200, "\(animation.text)")
                #expect(animation.headers["content-type"] == "image/webp")
                #expect(animation.body == (try Data(contentsOf: animationFile)))
                // Each route takes only its own output's options.
                let wrong = try server.curl.request("POST", "/v1/animation?sheet-views=3", bodyFile: TestScenes.spz)
                #expect(wrong.status == 400)
                #expect((wrong.json?["error"] as? [String: Any])?["field"] as? String == "sheet-views")
            }
        }

        @Test func infoAnswersTheInfoJSONObject() throws {
            let cli = Process()
            cli.executableURL = URL(fileURLWithPath: ServeProcess.binary)
            cli.arguments = ["info", TestScenes.ply.path, "--json", "--bounds"]
            let out = Pipe()
            cli.standardOutput = out
            try cli.run()
            let printed = out.fileHandleForReading.readDataToEndOfFile()
            cli.waitUntilExit()
            var expected = try #require(try JSONSerialization.jsonObject(with: printed) as? [String: Any])
            try ServeProcess.with { server in
                let info = try server.curl.request("POST", "/v1/info?bounds=1", bodyFile: TestScenes.ply)
                #expect(info.status == 200, "\(info.text)")
                #expect(info.headers["content-type"] == "application/json")
                var served = try #require(info.json)
                #expect(served["file"] as? String == "request body")
                served["file"] = nil
                expected["file"] = nil
                #expect(NSDictionary(dictionary: served).isEqual(to: expected), "\(served) vs \(expected)")
                #expect(served["count"] as? Int == 1000)
                let headerOnly = try server.curl.request("POST", "/v1/info", bodyFile: TestScenes.ply)
                #expect(headerOnly.json?["bounds"] == nil)
                #expect(headerOnly.json?["format"] as? String == "ply")
            }
        }
    }
}
