import Foundation
import SplatCore
import SplatImage

/// `splat-bench png-levels [--repeat N] [--levels L,…] [--threads T] FILE.png…`: for each image
/// (read back to pixels) and each libdeflate level, the PNG size beside libpng's default and the
/// median encode time beside raw libdeflate level 6 on the same pixels — the size/time trade-off
/// behind `PNGWriter.defaultCompressionLevel`, and a loop to run under `perf record`.
enum PNGLevelsTool {
    static func run(_ arguments: [String]) -> Int32 {
        var repeats = 9
        var levels = [1, 2, 3, 4, 5, 6, 7, 9, 12]
        var threads: Int?
        var files: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--repeat": repeats = rest.popFirst().flatMap { Int($0) } ?? repeats
            case "--levels": levels = rest.popFirst()?.split(separator: ",").compactMap { Int($0) } ?? levels
            case "--threads": threads = rest.popFirst().flatMap { Int($0) }
            default: files.append(argument)
            }
        }
        guard !files.isEmpty else {
            FileHandle.standardError.write(Data("usage: splat-bench png-levels [--repeat N] [--levels L,…] [--threads T] FILE.png…\n".utf8))
            return 2
        }
        let stopwatch = Stopwatch(warmUps: 1, runs: repeats)
        print("| image | level | bytes | × libpng | ms (median) | × raw libdeflate 6 |")
        print("|---|---|---|---|---|---|")
        do {
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
        } catch {
            FileHandle.standardError.write(Data("png-levels: \(error)\n".utf8))
            return 1
        }
        return 0
    }
}
