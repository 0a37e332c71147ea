import Foundation
import SplatCore

/// `splat-bench run [--smoke] [options]`: the performance record. Runs the decode, memory,
/// render and end-to-end suites, writes one JSON line per figure and prints the table with the
/// issue's targets marked. Exits 0 whatever the timings are; 1 only when the harness fails
/// (a missing file, a decode error, a child process that fails), 2 on a usage error.
struct BenchmarkRun {
    var smoke = false
    var shared: String?
    var stress: String?
    var jsonPath: String?
    var runs: Int?
    var splatrender: String?
    var suites: Set<String> = BenchmarkRun.allSuites

    static let allSuites: Set<String> = ["decode", "memory", "render", "image", "e2e", "stats", "fleet", "serve"]
    static let usage = """
        usage: splat-bench run [--smoke] [--shared PATH] [--stress DIR] [--json FILE] [--runs N]
                               [--splatrender PATH] [--suites decode,memory,render,image,e2e,stats,fleet,serve]
          --smoke        small corpus scenes only (no stress scene), 3 runs per figure
          --shared PATH  the shared folder (default: ../shared from the working directory, else beside the package)
          --stress DIR   folder with stress.ply, stress.v3.spz, stress.v4.spz (default: <package>/stress;
                         make it with tools/make-stress-scene)
          --json FILE    JSON lines to FILE and the table to stdout (default: JSON lines to stdout, table to stderr)
          --runs N       measured runs per figure after one warm-up (default 5, smoke 3)
          --splatrender PATH  the binary for the end-to-end and serve figures (default: splatrender beside this executable)

        """

    static func main(_ arguments: [String]) -> Int32 {
        var run = BenchmarkRun()
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchmarkError("\(option) needs a value") }
            return v
        }
        do {
            while let argument = rest.popFirst() {
                switch argument {
                case "--smoke": run.smoke = true
                case "--shared": run.shared = try value(argument)
                case "--stress": run.stress = try value(argument)
                case "--json": run.jsonPath = try value(argument)
                case "--splatrender": run.splatrender = try value(argument)
                case "--runs":
                    guard let n = Int(try value(argument)), n > 0 else { throw BenchmarkError("--runs needs a positive number") }
                    run.runs = n
                case "--suites":
                    let names = Set(try value(argument).split(separator: ",").map(String.init))
                    guard !names.isEmpty, names.isSubset(of: allSuites) else {
                        throw BenchmarkError("--suites takes a comma-separated subset of " + allSuites.sorted().joined(separator: ","))
                    }
                    run.suites = names
                case "-h", "--help":
                    FileHandle.standardOutput.write(Data(usage.utf8))
                    return 0
                default: throw BenchmarkError("unexpected argument \(argument)")
                }
            }
        } catch {
            FileHandle.standardError.write(Data("splat-bench run: \(error)\n\(usage)".utf8))
            return 2
        }
        do {
            try run.execute()
            return 0
        } catch {
            FileHandle.standardError.write(Data("splat-bench run: harness failure: \(error)\n".utf8))
            return 1
        }
    }

    func execute() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let paths = try BenchmarkPaths(shared: shared)
        let machine = Machine.current(packageRoot: paths.packageRoot)
        let report = try Report(machine: machine, jsonPath: jsonPath)
        let stopwatch = Stopwatch(warmUps: 1, runs: runs ?? (smoke ? 3 : 5))
        report.progress("splat-bench \(smoke ? "smoke" : "full") run on \(machine.summary); shared \(paths.shared.path)")

        let small = try [
            DecodeInput(kind: .ply, scene: "gs3d_tile", path: paths.corpusFile("ply/gs3d-pr477-lod1_tile_0_0.5x.ply"), isStress: false),
            DecodeInput(kind: .compressedPLY, scene: "guitar", path: paths.corpusFile("compressed-ply/guitar.compressed.ply"), isStress: false),
            DecodeInput(kind: .spzV3, scene: "biker", path: paths.corpusFile("spz/reference/biker.v3.spz"), isStress: false),
            DecodeInput(kind: .spzV4, scene: "biker", path: paths.corpusFile("spz/biker.spz"), isStress: false),
            DecodeInput(kind: .sog, scene: "monkey", path: paths.corpusFile("sog/monkey_0001.sog"), isStress: false),
            DecodeInput(kind: .sog, scene: "playcanvas_logo", path: paths.corpusFile("sog/playcanvas-logo-v1"), isStress: false),
            DecodeInput(kind: .sog, scene: "playbot", path: paths.corpusFile("sog/playbot-lod4"), isStress: false),
            DecodeInput(kind: .splat, scene: "luma_seal", path: paths.corpusFile("splat/luma-seal.splat"), isStress: false),
        ]
        var stressInputs: [DecodeInput] = []
        // The fleet and image suites never read the stress scene.
        if !smoke && !suites.isDisjoint(with: ["decode", "memory", "render", "stats", "e2e"]) {
            let folder = stress ?? paths.packageRoot.appendingPathComponent("stress").path
            for (kind, name) in [(DecodeInput.Kind.ply, "stress.ply"), (.spzV3, "stress.v3.spz"), (.spzV4, "stress.v4.spz")] {
                let path = (folder as NSString).appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: path) else {
                    throw BenchmarkError("missing \(path): make it with tools/make-stress-scene (or pass --stress DIR, or run --smoke)")
                }
                stressInputs.append(DecodeInput(kind: kind, scene: "stress", path: path, isStress: true))
            }
        }
        let biker = small[3]

        if suites.contains("decode") {
            try DecodeSuite(stopwatch: stopwatch, report: report).run(small + stressInputs)
        }
        if suites.contains("memory") {
            try MemorySuite(report: report).run(small + stressInputs)
        }
        if suites.contains("render") {
            let render = RenderSuite(stopwatch: stopwatch, report: report)
            try render.run(RenderInput(scene: "biker", path: biker.path, targets: [1024: 25]))
            if let v4 = stressInputs.first(where: { $0.kind == .spzV4 }) {
                try render.run(RenderInput(scene: "stress", path: v4.path, targets: [512: 180]))
            }
        }
        if suites.contains("image") {
            let scenes = [("biker", biker.path, [512, 1024]), ("guitar", small[1].path, [512]), ("monkey", small[4].path, [512]),
                          ("playcanvas_logo", small[5].path, [512]), ("gs3d_tile", small[0].path, [512]),
                          ("fruit", paths.packageRoot.appendingPathComponent("SampleScenes/fruit.ply").path, [512])]
            try ImageSuite(stopwatch: stopwatch, report: report)
                .run(scenes.map { ImageSuite.Input(scene: $0.0, path: $0.1, sides: $0.2) }, full: !smoke)
        }
        if suites.contains("stats") {
            let stats = StatsSuite(stopwatch: stopwatch, report: report)
            if let v4 = stressInputs.first(where: { $0.kind == .spzV4 }) {
                try stats.run(path: v4.path, scene: "stress", targetMilliseconds: 150)
            } else {
                try stats.run(path: biker.path, scene: "biker", targetMilliseconds: nil)
            }
        }
        if suites.contains("e2e") {
            if let binary = splatrender ?? BenchmarkPaths.siblingSplatrender {
                let suite = EndToEndSuite(stopwatch: Stopwatch(warmUps: 1, runs: smoke ? 2 : 3), report: report)
                if let v4 = stressInputs.first(where: { $0.kind == .spzV4 }) {
                    try suite.run(binary: binary, input: v4.path, scene: "stress", decodeFigure: v4.codesFigure, targetMilliseconds: 400,
                                  targetPeakMiB: 500)
                } else {
                    try suite.run(binary: binary, input: biker.path, scene: "biker", decodeFigure: biker.codesFigure, targetMilliseconds: nil)
                }
            } else {
                report.progress("end to end skipped: no splatrender beside \(ChildProcess.currentExecutable) (build it or pass --splatrender)")
            }
        }
        if suites.contains("serve") {
            if let binary = splatrender ?? BenchmarkPaths.siblingSplatrender {
                try ServeSuite(report: report, smoke: smoke)
                    .run(binary: binary, input: paths.packageRoot.appendingPathComponent("SampleScenes/biker.spz").path, scene: "biker")
            } else {
                report.progress("serve skipped: no splatrender beside \(ChildProcess.currentExecutable) (build it or pass --splatrender)")
            }
        }

        if suites.contains("fleet") {
            if let binary = splatrender ?? BenchmarkPaths.siblingSplatrender {
                try FleetSuite(runs: smoke ? 1 : 3, report: report)
                    .run(binary: binary, scene: "biker", path: biker.path, copies: smoke ? 10 : 100, side: 256)
            } else {
                report.progress("fleet skipped: no splatrender beside \(ChildProcess.currentExecutable) (build it or pass --splatrender)")
            }
        }

        let targets = report.targetTable()
        let table = report.table() + (targets.isEmpty ? "" : "\ntargets (Markdown):\n\n" + targets + "\n")
            + report.targetSummary
            + String(format: "; run took %.1f s\n", Stopwatch.milliseconds(clock.now - started) / 1000)
        if jsonPath != nil {
            FileHandle.standardOutput.write(Data(table.utf8))
        } else {
            FileHandle.standardError.write(Data(("\n" + table).utf8))
        }
    }
}
