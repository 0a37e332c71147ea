import Foundation
import SplatCore
import SplatImage

/// `splat-bench png-levels [--repeat N] [--levels L,…] [--threads T] FILE.png…`: for each image
/// (read back to pixels) and each libdeflate level, the PNG size beside libpng's default and the
/// median encode time beside raw libdeflate level 6 on the same pixels — the size/time trade-off
/// behind `PNGWriter.defaultCompressionLevel`, and a loop to run under `perf record`.
enum PNGLevelsTool {
    static func run(_ arguments: [String]) -> Int32 {
        let tool = ToolCommand("png-levels", synopsis: "[--repeat N] [--levels L,…] [--threads T] FILE.png…")
        let options = ToolCommand.Arguments(arguments, valueOptions: ["--repeat", "--levels", "--threads"])
        let repeats = options.value("--repeat", 9) { Int($0) }
        let levels = options.value("--levels", [1, 2, 3, 4, 5, 6, 7, 9, 12]) { $0.split(separator: ",").compactMap { Int($0) } }
        let threads = options.string("--threads").flatMap { Int($0) }
        let files = options.words
        guard !files.isEmpty else { return tool.usage() }
        let stopwatch = Stopwatch(warmUps: 1, runs: repeats)
        print("| image | level | bytes | × libpng | ms (median) | × raw libdeflate 6 |")
        print("|---|---|---|---|---|---|")
        return tool.run {
            for file in files {
                let image = try PNGReader.read(path: file)
                let raw = try stopwatch.measure { try RawBaselines.deflate(image.pixels, level: 6) }.median
                let libpng = try LibpngBaseline.encode(image).count
                let name = (file as NSString).lastPathComponent
                print("| \(name) | libpng | \(libpng) | 1.000 | – | – |")
                for level in levels {
                    var size = 0
                    let time = try stopwatch.measure { () throws -> Int in
                        size = try PNGWriter.encode(image, compressionLevel: level, threads: threads).count
                        return size
                    }.median
                    print(String(format: "| %@ | %d | %d | %.3f | %.2f | %.2f |", name, level, size, Double(size) / Double(libpng),
                                 time, time / raw))
                }
            }
            return 0
        }
    }
}
