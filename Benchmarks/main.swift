import Foundation

// splat-bench: the performance record (`run`) and the tools it needs.
let arguments = Array(CommandLine.arguments.dropFirst())

/// One command of `splat-bench`: its name, its usage line (arguments, then what it does) and
/// its entry point. The usage text and the dispatch both read this table.
struct BenchCommand {
    let name: String
    let usage: String
    let run: ([String]) -> Int32
}

let commands = [
    BenchCommand(name: "run", usage: "[--smoke] [--json FILE] [--shared PATH] [--stress DIR] [--runs N] [--splatrender PATH] [--suites LIST]\n"
                 + "      every suite with its baselines and targets (see Benchmarks/README.md; `run --help`)",
                 run: BenchmarkRun.main),
    BenchCommand(name: "make-stress-scene", usage: "OUTDIR [--count N] [--seed S]   write stress.ply / stress.v3.spz / stress.v4.spz",
                 run: StressSceneGenerator.run),
    BenchCommand(name: "spz-decode", usage: "FILE [--repeat N] [--only ours|raw|file]   SPZ decode time against bare zstd / libdeflate",
                 run: SPZDecodeBenchmark.run),
    BenchCommand(name: "up-eval", usage: "[--shared PATH] [--no-roundtrip] [--evidence] [--stress-only] [--stress-count N] [--runs N]   up estimator accuracy on the orientation test set, and its cost",
                 run: UpEvaluation.run),
    BenchCommand(name: "gltf-decode", usage: "SCENE [--repeat N] [--keep DIR]   SCENE as .glb (plain, SPZ) against memcpy / the SPZ payload decode",
                 run: GLTFDecodeBenchmark.run),
    BenchCommand(name: "decode-peak", usage: "FILE   decode once and print byte counts and peak RSS as JSON (run as a child by `run`)",
                 run: MemorySuite.decodeOnce),
    BenchCommand(name: "encode-deadline", usage: "[--shared PATH]   how far past a 1 s deadline huge PNG, JPEG and WebP encodes run",
                 run: EncodeDeadlineProbe.main),
    BenchCommand(name: "png-levels", usage: "[--repeat N] [--levels L,…] [--threads T] FILE.png…   PNG size and time per libdeflate level",
                 run: PNGLevelsTool.run),
    BenchCommand(name: "render-frame", usage: "FILE [--side N] [--threads T] [--repeat R] [--per-frame] [--out F.png]   frames of the default view: wall, CPU and stage times",
                 run: RenderFrameTool.run),
    BenchCommand(name: "margins", usage: "[--shared PATH] [--size N] [--padding P] [--azimuths N] [--elevations A,B,…] [--scenes A,B] [--write DIR]   subject-to-edge margins of the auto-framed object scenes",
                 run: MarginsTool.run),
]
if let option = arguments.first, option.hasPrefix("--") {
    // Options alone mean `run`.
    exit(BenchmarkRun.main(arguments))
}
guard let command = commands.first(where: { $0.name == arguments.first }) else {
    let usage = commands.map { "  \($0.name) \($0.usage)" }.joined(separator: "\n")
    FileHandle.standardError.write(Data(("usage: splat-bench COMMAND ...\n" + usage + "\n").utf8))
    exit(2)
}
exit(command.run(Array(arguments.dropFirst())))
