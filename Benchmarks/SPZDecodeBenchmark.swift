import CDeflate
import CZstd
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
/// non-finite filter.
enum SPZDecodeBenchmark {
    static func run(_ arguments: [String]) -> Int32 {
        var path: String?
        var repeats = 5
        var only: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--repeat": repeats = rest.popFirst().flatMap(Int.init) ?? repeats
            case "--only": only = rest.popFirst()
            default: path = argument
            }
        }
        guard let path else {
            FileHandle.standardError.write(Data("usage: splat-bench spz-decode FILE [--repeat N] [--only ours|raw|file]\n".utf8))
            return 2
        }
        do {
            let input = try InputBytes(path: path)
            let bytes = input.bytes
            let isV4 = bytes.count >= 4 && bytes[0] == 0x4E && bytes[1] == 0x47
            var results: [(String, (wall: Duration, cpu: Double))] = []
            if only == nil || only == "raw" {
                let raw = try best(of: repeats) { isV4 ? try rawZstd(bytes) : try rawLibdeflate(bytes) }
                results.append((isV4 ? "raw zstd (all streams, concurrent)" : "raw libdeflate (whole member)", raw))
            }
            if only == nil || only == "ours" {
                var splats = 0
                let ours = try best(of: repeats) {
                    let decoded = try SPZDecoder.decode(bytes, file: path, limits: DecodeLimits())
                    splats = decoded.scene.count
                }
                results.append(("SPZDecoder.decode (\(splats) splats)", ours))
            }
            if only == "file" {
                results.append(("SplatFile.decode", try best(of: repeats) { _ = try SplatFile.decode(input) }))
            }
            for (name, time) in results {
                print(name.padding(toLength: 40, withPad: " ", startingAt: 0)
                      + String(format: "%8.1f ms wall %8.1f ms cpu", milliseconds(time.wall), time.cpu * 1000))
            }
            if results.count == 2 {
                print(String(format: "ratio decode / raw: %.2f wall, %.2f cpu", milliseconds(results[1].1.wall) / milliseconds(results[0].1.wall),
                             results[1].1.cpu / results[0].1.cpu))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("spz-decode: \(error)\n".utf8))
            return 1
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

    /// Inflates every stream of a v4 file into its own exact-size buffer, concurrently.
    static func rawZstd(_ bytes: UnsafeRawBufferPointer) throws {
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        func u64(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian) }
        let streams = Int(bytes[15]), toc = u32(16)
        var offset = toc + 16 * streams
        var ranges: [(Range<Int>, Int)] = []
        for i in 0..<streams {
            let c = u64(toc + 16 * i), u = u64(toc + 16 * i + 8)
            ranges.append((offset..<offset + c, u))
            offset += c
        }
        let order = ranges.indices.sorted { ranges[$0].1 > ranges[$1].1 }
        let failed = FailureFlag()
        Parallel.forEach(iterations: order.count) { task in
            let (range, size) = ranges[order[task]]
            let out = FreshBuffer(size)
            let n = ZSTD_decompress(out.base, size, bytes.baseAddress! + range.lowerBound, range.count)
            if ZSTD_isError(n) != 0 || n != size { failed.store(true) }
        }
        if failed.load() { throw SplatError(.corrupt, "raw zstd failed") }
    }

    /// Inflates the gzip member with libdeflate into a buffer of the trailer's size.
    static func rawLibdeflate(_ bytes: UnsafeRawBufferPointer) throws {
        let n = bytes.count
        let size = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
        let out = FreshBuffer(size)
        let d = libdeflate_alloc_decompressor()
        defer { libdeflate_free_decompressor(d) }
        guard libdeflate_gzip_decompress(d, bytes.baseAddress, n, out.base, size, nil) == LIBDEFLATE_SUCCESS else {
            throw SplatError(.corrupt, "raw libdeflate failed")
        }
    }
}

/// A flag set from worker threads.
private final class FailureFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func store(_ v: Bool) { lock.lock(); value = v; lock.unlock() }
    func load() -> Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// An anonymous mapping with huge pages advised over its 2 MiB-aligned interior, unmapped on deinit.
private final class FreshBuffer {
    let base: UnsafeMutableRawPointer
    private let size: Int
    init(_ size: Int) {
        self.size = max(1, size)
        base = mmap(nil, self.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        let huge = UInt(2 << 20), address = UInt(bitPattern: base)
        let first = (address + huge - 1) & ~(huge - 1), end = (address + UInt(self.size)) & ~(huge - 1)
        if end > first { madvise(UnsafeMutableRawPointer(bitPattern: first), Int(end - first), 14 /* MADV_HUGEPAGE */) }
    }
    deinit { munmap(base, size) }
}
