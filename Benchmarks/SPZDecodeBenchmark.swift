import Foundation
import SplatCore
import SplatFormats

/// `spz-decode FILE [--repeat N] [--only ours|raw|file]`: times the SPZ decoder against the bare
/// decompression of the same file in the same process — for v4 every zstd stream inflated into an
/// exact-size buffer, concurrently, largest first (what the decoder does before dequantizing);
/// for gzip files one libdeflate call into a buffer of the trailer's size. The raw buffers are
/// fresh anonymous mappings with transparent huge pages advised, as the decoder's are, so both
/// pay the same page faults. Prints the best of N runs of each and the ratio. `--only ours` runs
/// just the decoder (for `/usr/bin/time -v`); `file` times `SplatFile.decode`, which adds the
/// non-finite filter. `--sh codes` decodes into the render form (`SHStorage.quantized`).
enum SPZDecodeBenchmark {
    static func run(_ arguments: [String]) -> Int32 {
        let tool = ToolCommand("spz-decode", synopsis: "FILE [--repeat N] [--only ours|raw|file] [--sh float|codes]")
        let options = ToolCommand.Arguments(arguments, valueOptions: ["--repeat", "--only", "--sh"])
        let storage: SHStorage = options.string("--sh") == "codes" ? .quantized : .float32
        let repeats = options.value("--repeat", 5) { Int($0) }
        let only = options.string("--only")
        guard let path = options.words.last else { return tool.usage() }
        return tool.run {
            let input = try InputBytes(path: path)
            let bytes = input.bytes
            let isV4 = bytes.count >= 4 && bytes[0] == 0x4E && bytes[1] == 0x47
            var results: [(String, (wall: Duration, cpu: Double))] = []
            if only == nil || only == "raw" {
                let raw = try best(of: repeats) {
                    if isV4 { _ = try RawBaselines.zstdStreams(bytes, file: path) } else { _ = try RawBaselines.libdeflateGzip(bytes, file: path) }
                }
                results.append((isV4 ? "raw zstd (all streams, concurrent)" : "raw libdeflate (whole member)", raw))
            }
            if only == nil || only == "ours" {
                var splats = 0
                let ours = try best(of: repeats) {
                    let decoded = try SPZDecoder.decode(bytes, file: path, limits: DecodeLimits(), sh: storage)
                    splats = decoded.scene.count
                }
                results.append(("SPZDecoder.decode (\(splats) splats, \(storage.rawValue))", ours))
            }
            if only == "file" {
                results.append(("SplatFile.decode", try best(of: repeats) { _ = try SplatFile.decode(input) }))
            }
            for (name, time) in results {
                print(name.padding(toLength: 52, withPad: " ", startingAt: 0)
                      + String(format: "%8.1f ms wall %8.1f ms cpu", milliseconds(time.wall), time.cpu * 1000))
            }
            if results.count == 2 {
                print(String(format: "ratio decode / raw: %.2f wall, %.2f cpu", milliseconds(results[1].1.wall) / milliseconds(results[0].1.wall),
                             results[1].1.cpu / results[0].1.cpu))
            }
            return 0
        }
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }

    /// Best wall time of `n` runs, and the least CPU time (user + system, all threads) of a run;
    /// on a busy machine the CPU time is the steadier figure.
    static func best(of n: Int, _ body: () throws -> Void) throws -> (wall: Duration, cpu: Double) {
        let clock = ContinuousClock()
        var best = Duration.seconds(1_000_000)
        var cpu = Double.infinity
        for _ in 0..<max(1, n) {
            let startCPU = cpuSeconds()
            let start = clock.now
            try body()
            best = min(best, clock.now - start)
            cpu = min(cpu, cpuSeconds() - startCPU)
        }
        return (best, cpu)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
