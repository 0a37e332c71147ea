import Foundation

// splat-bench: the performance record (`run`) and the tools it needs.
let arguments = Array(CommandLine.arguments.dropFirst())
let commands = [
    "run [--smoke] [--json FILE] [--shared PATH] [--stress DIR] [--runs N] [--splatrender PATH] [--suites LIST]",
    "    every suite with its baselines and targets (see Benchmarks/README.md; `run --help`)",
    "make-stress-scene OUTDIR [--count N] [--seed S]   write stress.ply / stress.v3.spz / stress.v4.spz",
    "spz-decode FILE [--repeat N] [--only ours|raw|file]   SPZ decode time against bare zstd / libdeflate",
    "up-eval [--shared PATH] [--no-roundtrip] [--evidence] [--stress-only] [--stress-count N] [--runs N]   up estimator accuracy on the orientation test set, and its cost",
    "gltf-decode SCENE [--repeat N] [--keep DIR]   SCENE as .glb (plain, SPZ) against memcpy / the SPZ payload decode",
    "decode-peak FILE   decode once and print byte counts and peak RSS as JSON (run as a child by `run`)",
    "encode-deadline [--shared PATH]   how far past a 1 s deadline huge PNG, JPEG and WebP encodes run",
    "png-levels [--repeat N] [--levels L,…] [--threads T] FILE.png…   PNG size and time per libdeflate level",
    "render-frame FILE [--side N] [--threads T] [--repeat R] [--out F.png]   frames of the default view: wall, CPU and stage times",
    "margins [--shared PATH] [--size N] [--padding P] [--azimuths N] [--elevations A,B,…] [--scenes A,B] [--write DIR]   subject-to-edge margins of the auto-framed object scenes",
]
switch arguments.first {
case "run":
    exit(BenchmarkRun.main(Array(arguments.dropFirst())))
case let option? where option.hasPrefix("--"):
    exit(BenchmarkRun.main(arguments))
case "make-stress-scene":
    exit(StressSceneGenerator.run(Array(arguments.dropFirst())))
case "spz-decode":
    exit(SPZDecodeBenchmark.run(Array(arguments.dropFirst())))
case "up-eval":
    exit(UpEvaluation.run(Array(arguments.dropFirst())))
case "gltf-decode":
    exit(GLTFDecodeBenchmark.run(Array(arguments.dropFirst())))
case "decode-peak":
    exit(MemorySuite.decodeOnce(Array(arguments.dropFirst())))
case "encode-deadline":
    exit(EncodeDeadlineProbe.main(Array(arguments.dropFirst())))
case "png-levels":
    exit(PNGLevelsTool.run(Array(arguments.dropFirst())))
case "render-frame":
    exit(RenderFrameTool.run(Array(arguments.dropFirst())))
case "margins":
    exit(MarginsTool.run(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data(("usage: splat-bench COMMAND ...\n" + commands.map { "  " + $0 }.joined(separator: "\n") + "\n").utf8))
    exit(2)
}
