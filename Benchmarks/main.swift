import Foundation

// splat-bench: one subcommand per benchmark or benchmark-data tool.
let arguments = Array(CommandLine.arguments.dropFirst())
let commands = [
    "make-stress-scene OUTDIR [--count N] [--seed S]   write stress.ply / stress.v3.spz / stress.v4.spz",
    "spz-decode FILE [--repeat N] [--only ours|raw|file]   SPZ decode time against bare zstd / libdeflate",
]
switch arguments.first {
case "make-stress-scene":
    exit(StressSceneGenerator.run(Array(arguments.dropFirst())))
case "spz-decode":
    exit(SPZDecodeBenchmark.run(Array(arguments.dropFirst())))
default:
    FileHandle.standardError.write(Data(("usage: splat-bench COMMAND ...\n" + commands.map { "  " + $0 }.joined(separator: "\n") + "\n").utf8))
    exit(2)
}
