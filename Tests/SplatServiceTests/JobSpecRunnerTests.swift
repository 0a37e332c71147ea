import Foundation
import Testing
import SplatCore
import SplatImage
import SplatRender
import TestSupport
@testable import SplatService

@Suite struct JobSpecRunnerTests {
    static func job(_ id: String, input: String, options: String = "{}", outputs: [String]) -> String {
        #"{"id": "\#(id)", "input": "\#(input)", "options": \#(options), "outputs": [\#(outputs.joined(separator: ", "))]}"#
    }

    static func output(_ kind: String, _ path: String, _ extra: String = "") -> String {
        #"{"kind": "\#(kind)", "to": "file://\#(path)"\#(extra)}"#
    }

    @Test func outputsAreTheBytesOfTheOrdinaryJobs() throws {
        let dir = try Fixtures.temporaryDirectory("spec-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("deep/er").path
        let text = Self.job("fruit", input: "file://\(ServiceFixtures.fruit)", options: #"{"resolution": "48x40", "sh-degree": 1}"#, outputs: [
            Self.output("image", "\(out)/thumb.png"),
            Self.output("sheet", "\(out)/sheet.webp", #", "sheet-views": 3, "quality": 60"#),
            Self.output("animation", "\(out)/spin.webp", #", "frames": 4, "resolution": "32x32""#),
        ])
        let spec = try JobSpecParser.parse(text)
        let renders = JobSpecRender.plan(spec)
        #expect(renders.count == 2, "the animation's resolution differs: two renders over one decode")
        #expect(renders[0].image == 0 && renders[0].sheet == 1 && renders[1].animation == 2)

        let outcome = JobSpecRunner().run(spec)
        #expect(outcome.error == nil, "\(String(describing: outcome.error))")
        #expect(!outcome.isTransient && outcome.id == "fruit")
        let report = outcome.report
        #expect(report.outputs.map(\.path) == ["thumb.png", "sheet.webp", "spin.webp"].map { "file://\(out)/\($0)" })
        #expect(report.outputs.map(\.role) == [.image, .sheet, .animation])
        #expect(report.outputs.map(\.format) == ["png", "webp", "webp"])
        #expect(report.decodedCount == 4721 && report.timings[.decode] != nil && report.timings[.write] != nil)
        #expect(report.json.serialized(pretty: false).hasPrefix(#"{"command":"worker","id":"fruit","input":"file://"#))

        // The same outputs from ordinary jobs, each decoding on its own, as the command line runs them.
        let expected = try Fixtures.temporaryDirectory("spec-run-cli")
        defer { try? FileManager.default.removeItem(at: expected) }
        let view = ViewRequest(settings: RenderSettings(width: 48, height: 40, maxShDegree: 1))
        var still = SceneJob(input: .path(ServiceFixtures.fruit), view: view, image: .file(expected.path + "/thumb.png"),
                             sheet: SheetOutput(path: expected.path + "/sheet.webp", plan: SheetPlan(views: 3)))
        still.encoding = ImageEncoding(quality: 60)
        #expect(still.run().report.succeeded)
        let spin = SceneJob(input: .path(ServiceFixtures.fruit), view: ViewRequest(settings: RenderSettings(width: 32, height: 32, maxShDegree: 1)),
                            orbit: OrbitOptions(frames: 4), animation: AnimationOutput(path: expected.path + "/spin.webp"))
        #expect(spin.run().report.succeeded)
        for name in ["thumb.png", "sheet.webp", "spin.webp"] {
            #expect(try ServiceFixtures.bytes("\(out)/\(name)") == ServiceFixtures.bytes(expected.path + "/" + name), "\(name)")
        }
    }

    @Test func viewsThatDifferKeepTheirOwnRenders() throws {
        let image = Self.output("image", "/o/a.png"), sheet = Self.output("sheet", "/o/s.png")
        func renders(_ outputs: [String], options: String = "{}") throws -> Int {
            JobSpecRender.plan(try JobSpecParser.parse(Self.job("j", input: "file:///i.ply", options: options, outputs: outputs))).count
        }
        #expect(try renders([image, sheet, Self.output("animation", "/o/a.webp")]) == 1)
        // Another elevation changes the framing an image would get beside the orbit.
        #expect(try renders([image, Self.output("sheet", "/o/s.png", #", "elevation": 40"#)]) == 2)
        #expect(try renders([image, sheet], options: #"{"camera-pos": "0,0,3"}"#) == 2)
        #expect(try renders([Self.output("image", "/o/a.webp", #", "quality": 50"#), Self.output("sheet", "/o/s.webp")]) == 2)
        #expect(try renders([image, Self.output("image", "/o/b.png")]) == 2)
    }

    @Test func permanentFailuresWriteNothingAndSayWhy() throws {
        let dir = try Fixtures.temporaryDirectory("spec-fail")
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = [Self.output("image", dir.path + "/a.png")]
        let runner = JobSpecRunner(admission: AdmissionController(workers: 1, queueLimit: 1, memoryBudgetBytes: 1 << 20))

        let missing = runner.run(text: Self.job("m", input: "file://\(dir.path)/nothing.spz", outputs: target))
        #expect(missing.error?.kind == .io && !missing.isTransient)
        #expect(missing.report.failedStage == .input)

        let ceiling = JobSpecRunner().run(text: Self.job("c", input: "file://\(ServiceFixtures.biker)",
                                                         options: #"{"max-decoded-bytes": "1M"}"#, outputs: target))
        #expect(ceiling.error?.kind == .tooLarge && !ceiling.isTransient)
        #expect(ceiling.report.decodedCount == nil && ceiling.report.verdict?.fitsLimit == false)

        let budget = runner.run(text: Self.job("b", input: "file://\(ServiceFixtures.biker)", outputs: target))
        #expect(budget.error?.kind == .tooLarge && budget.error?.field == "memory-budget" && !budget.isTransient)

        let refused = runner.run(text: "{\"id\": \"r\"}", index: 4)
        #expect(refused.error?.kind == .badJob && refused.id == "r" && refused.report.index == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func storageTroubleAndStoppedRunsAreWorthAnotherAttempt() throws {
        let dir = try Fixtures.temporaryDirectory("spec-transient")
        defer { try? FileManager.default.removeItem(at: dir) }
        // The output's folder would have to be made under a regular file.
        try Data("x".utf8).write(to: dir.appendingPathComponent("file"))
        let blocked = JobSpecRunner().run(text: Self.job("s", input: "file://\(ServiceFixtures.fruit)", options: #"{"resolution": "16x16"}"#,
                                                         outputs: [Self.output("image", dir.path + "/file/sub/a.png")]))
        #expect(blocked.error?.kind == .io && blocked.isTransient && blocked.report.failedStage == .output)

        let stop = CancellationToken()
        stop.cancel(.cancelled)
        let stopped = JobSpecRunner().run(text: Self.job("t", input: "file://\(ServiceFixtures.fruit)", outputs: [Self.output("image", dir.path + "/b.png")]),
                                          cancellation: stop)
        #expect(stopped.error?.kind == .cancelled && stopped.isTransient)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/b.png"))
    }
}
