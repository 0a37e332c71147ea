import Foundation
import Testing
import SplatRender
import SplatCore
import SplatFormats
import SplatImage
import TestSupport
@testable import SplatService

@Suite struct BatchRunnerTests {
    /// A folder mixing good scenes, a truncated file, a non-splat file with a scene extension, a
    /// normal scene over a small ceiling, an unbundled SOG folder (also over it), a hidden file
    /// and a file with another extension (neither picked up).
    static func mixedFolder(_ tag: String) throws -> URL {
        let dir = try Fixtures.temporaryDirectory(tag)
        let input = dir.appendingPathComponent("in")
        let nested = input.appendingPathComponent("nested")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        let fm = FileManager.default
        try fm.copyItem(atPath: ServiceFixtures.fruit, toPath: input.appendingPathComponent("fruit.ply").path)
        try fm.copyItem(atPath: Fixtures.vector("minimal-v4.spz"), toPath: nested.appendingPathComponent("tiny.spz").path)
        try fm.copyItem(atPath: ServiceFixtures.biker, toPath: input.appendingPathComponent("biker.spz").path)
        try fm.copyItem(atPath: Fixtures.corpusFile("sog/playcanvas-logo-v1"), toPath: input.appendingPathComponent("logo").path)
        let spz = try ServiceFixtures.bytes(Fixtures.vector("minimal-v4.spz"))
        try Data(spz.prefix(spz.count - 9)).write(to: input.appendingPathComponent("cut.spz"))
        try Data("not a splat\n".utf8).write(to: input.appendingPathComponent("notes.ply"))
        try Data("x".utf8).write(to: input.appendingPathComponent(".hidden.ply"))
        try Data("x".utf8).write(to: input.appendingPathComponent("readme.txt"))
        return dir
    }

    @Test func foldersExpandSortedWithUniqueStems() throws {
        let dir = try Self.mixedFolder("svc-expand")
        let input = dir.appendingPathComponent("in").path
        let extra = dir.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: extra, withIntermediateDirectories: true)
        let upper = extra.appendingPathComponent("Fruit.ply").path
        try FileManager.default.copyItem(atPath: Fixtures.vector("tiny-3dgs-le.ply"), toPath: upper)
        let inputs = BatchInput.expand([input, upper, dir.appendingPathComponent("gone.spz").path])
        // The scan's sorted order (the nested folder's file where "nested" sorts), then the arguments;
        // hidden files and other extensions are skipped, the SOG folder is one input.
        #expect(inputs.map { ($0.path as NSString).lastPathComponent } ==
                ["biker.spz", "cut.spz", "fruit.ply", "logo", "tiny.spz", "notes.ply", "Fruit.ply", "gone.spz"])
        // "Fruit" would write Fruit.png beside fruit.png: on a case-insensitive disk the same file.
        // Scanned inputs keep their place in the tree; a file given directly uses its name.
        #expect(inputs.map(\.stem) == ["biker", "cut", "fruit", "logo", "nested/tiny", "notes", "Fruit-2", "gone"])
        #expect(inputs.last?.problem?.kind == .io)
        #expect(inputs.dropLast().allSatisfy { $0.problem == nil })
        #expect(BatchInput.stem(for: "/a/logo/meta.json") == "logo")
        #expect(BatchInput.stem(for: "/a/b.compressed.ply") == "b.compressed")
        #expect(BatchInput.stem(for: "/a/archive.tar") == "archive.tar")
    }

    @Test func mixedBatchGivesEveryInputItsLineAndGoodInputsTheirOutputs() throws {
        let dir = try Self.mixedFolder("svc-batch")
        let out = dir.appendingPathComponent("out")
        let reportPath = dir.appendingPathComponent("report.jsonl").path
        var load = LoadOptions()
        // fruit (1,114,156 bytes declared) fits; biker (8.5 MB) and the SOG logo (17 MB) do not.
        load.limits.maxDecodedBytes = 2_000_000
        let options = BatchOptions(outputDirectory: out.path, jobs: 2, load: load,
                                   view: ViewRequest(settings: RenderSettings(width: 32, height: 24, maxShDegree: 0)), orbit: OrbitOptions(frames: 3),
                                   writeFrames: true, sheet: SheetPlan(views: 3), animation: AnimatedWebPWriter.Options())
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let log = try JSONLinesLog(path: reportPath)
        let inputs = BatchInput.expand([dir.appendingPathComponent("in").path])
        let events = EventLog()
        let summary = BatchRunner(options: options).run(inputs, log: log, progress: { events.add($0) })

        #expect(summary.total == 6 && summary.succeeded == 2 && summary.failed == 4)
        #expect(summary.statusCounts == ["ok": 2, "too_large": 2, "truncated": 1, "bad_magic": 1])
        #expect(summary.logError == nil)

        let lines = try String(contentsOfFile: reportPath, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 6)
        var byName: [String: [String: Any]] = [:]
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byName[((object["input"] as? String ?? "") as NSString).lastPathComponent] = object
        }
        #expect(Set(byName.values.compactMap { $0["index"] as? Int }) == Set(0..<6))
        #expect(byName["fruit.ply"]?["status"] as? String == "ok")
        #expect(byName["tiny.spz"]?["status"] as? String == "ok")
        #expect(byName["cut.spz"]?["status"] as? String == "truncated")
        #expect(byName["notes.ply"]?["status"] as? String == "bad_magic")
        for name in ["biker.spz", "logo"] {
            let line = try #require(byName[name])
            #expect(line["status"] as? String == "too_large", "\(name)")
            // Refused from the header: the facts are there, nothing was decoded.
            #expect((line["ceiling"] as? [String: Any])?["fits_limit"] as? Bool == false)
            #expect(line["decoded_count"] is NSNull)
            #expect((line["timings_ms"] as? [String: Any])?["decode"] == nil)
        }
        #expect(byName["biker.spz"]?["count"] as? Int == 152_746)
        // The frame decision the header implies (SPZ's RUB convention) is there without a decode.
        #expect((byName["biker.spz"]?["frame_decision"] as? [String: Any])?["source_frame"] as? String == "RUB")
        #expect(byName["logo"]?["format"] as? String == "sog")
        let fruit = try #require(byName["fruit.ply"])
        #expect(fruit["format"] as? String == "ply" && fruit["count"] as? Int == 4721 && fruit["sh_degree"] as? Int == 3)
        #expect((fruit["frame_decision"] as? [String: Any])?["source_frame"] as? String == "RDF")
        #expect((fruit["camera"] as? [String: Any])?["position_source"] as? String == "auto")
        #expect((fruit["outputs"] as? [[String: Any]])?.compactMap { $0["role"] as? String } == ["image", "frames", "sheet", "animation"])
        for stage in ["decode", "frame", "render", "encode"] {
            #expect(((fruit["stages_ms"] as? [String: Any])?[stage] as? NSNumber)?.doubleValue ?? 0 > 0, "\(stage)")
        }

        // Good inputs have every output, bad ones none, and nothing half-written remains.
        let expected = ["fruit.png", "fruit.sheet.png", "fruit.webp", "fruit/frame_000.png", "fruit/frame_001.png",
                        "fruit/frame_002.png", "nested/tiny.png", "nested/tiny.sheet.png", "nested/tiny.webp",
                        "nested/tiny/frame_000.png", "nested/tiny/frame_001.png", "nested/tiny/frame_002.png"]
        #expect(ServiceFixtures.files(under: out) == expected)
        #expect(ServiceFixtures.files(under: dir).filter { $0.contains(".tmp-") || $0.hasSuffix(".partial") }.isEmpty)
        let thumbnail = try PNGReader.read(path: out.appendingPathComponent("fruit.png").path)
        #expect(thumbnail.width == 32 && thumbnail.height == 24)
        #expect(try AnimatedWebPReader.read(path: out.appendingPathComponent("fruit.webp").path).frameCount == 3)

        // Progress: a files event per input (plus the opening 0/6), the last one 6/6.
        let files = events.all.filter { $0.stage == "files" }
        #expect(files.count == 7 && files.last?.done == 6 && files.last?.total == 6)
        #expect(events.all.contains { $0.stage == "render" && $0.input?.hasSuffix("fruit.ply") == true })
    }

    @Test func runningInputsStayWithinTheMemoryBudgetByTheirEstimates() throws {
        let dir = try Fixtures.temporaryDirectory("svc-budget")
        var paths: [String] = []
        for i in 0..<3 {
            let path = dir.appendingPathComponent("s\(i).ply").path
            try FileManager.default.copyItem(atPath: Fixtures.vector("tiny-3dgs-le.ply"), toPath: path)
            paths.append(path)
        }
        let inputs = BatchInput.expand(paths)
        var narrow = BatchOptions(outputDirectory: dir.appendingPathComponent("a").path, jobs: 3,
                                  view: ViewRequest(settings: RenderSettings(width: 8, height: 8)))
        let job = narrow.job(for: inputs[0], index: 0)
        let header = try SceneLoader.readHeader(.path(paths[0]))
        let estimate = try #require(SceneAdmission.verdict(for: job, header: header, inputBytes: SceneAdmission.inputBytes(of: job.input, header: header),
                                                           memoryBudget: nil).estimate?.totalBytes)
        #expect(estimate > header.count * SplatScene.bytesPerSplat(degree: header.shDegree))
        // Room for one input at a time although three jobs are allowed.
        narrow.memoryBudget = estimate * 3 / 2
        let one = BatchRunner(options: narrow).run(inputs)
        #expect(one.succeeded == 3)
        #expect(one.peakRunning == 1 && one.peakRunningBytes == estimate)
        // One job at a time whatever the budget.
        var serial = BatchOptions(outputDirectory: dir.appendingPathComponent("b").path, jobs: 1,
                                  view: ViewRequest(settings: RenderSettings(width: 8, height: 8)))
        serial.memoryBudget = estimate * 10
        let two = BatchRunner(options: serial).run(inputs)
        #expect(two.succeeded == 3 && two.peakRunning == 1)
        // A budget below one input's estimate refuses every input without decoding it.
        var tight = serial
        tight.outputDirectory = dir.appendingPathComponent("c").path
        tight.memoryBudget = estimate - 1
        let none = BatchRunner(options: tight).run(inputs)
        #expect(none.succeeded == 0 && none.statusCounts == ["too_large": 3] && none.peakRunning == 0)
    }
}

/// Collects progress events from several threads.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ProgressEvent] = []

    func add(_ event: ProgressEvent) { lock.withLock { events.append(event) } }
    var all: [ProgressEvent] { lock.withLock { events } }
}
