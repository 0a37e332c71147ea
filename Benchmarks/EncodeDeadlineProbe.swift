import Foundation
import SplatCore
import SplatImage

/// How far past its deadline an encode of a huge image runs: `--timeout` is a hard deadline,
/// met when a job stops within deadline + max(100 ms, 10 %). The image is the 1024² biker
/// render tiled to the requested side (realistic compressibility at 1 GiB); the token expires
/// `deadline` after the encode starts, well before the encode could finish.
struct EncodeDeadlineProbe {
    let report: Report
    var shared: String? = nil
    static let deadline = Duration.seconds(1)

    struct Case {
        var format: ImageFormat
        var quality: Double?
        var side: Int
        var name: String { "\(format.rawValue)\(quality.map { "_q\(Int($0))" } ?? "").\(side)" }
    }

    /// PNG and JPEG at 16384² (1 GiB RGBA); WebP at 8192², as 16384 is past its 16383 limit and
    /// libwebp's own copies of a 16383² picture would need several GiB more.
    static let cases = [Case(format: .png, quality: nil, side: 16384), Case(format: .jpeg, quality: nil, side: 16384),
                        Case(format: .webp, quality: nil, side: 8192), Case(format: .webp, quality: 90, side: 8192)]

    /// `splat-bench encode-deadline [--shared PATH]`: the probe alone, table to stdout.
    static func main(_ arguments: [String]) -> Int32 {
        ToolCommand("encode-deadline").run {
            let shared = arguments.first == "--shared" ? arguments.dropFirst().first : nil
            let report = try Report(machine: Machine.current(packageRoot: BenchmarkPaths.builtPackageRoot), jsonPath: "/dev/null")
            try EncodeDeadlineProbe(report: report, shared: shared).run()
            print(report.table())
            return 0
        }
    }

    func run() throws {
        let tile = try ImageSuite.render(try BenchmarkPaths(shared: shared).corpusFile("spz/biker.spz"), sides: [1024])[0]
        var image = tile
        for probe in Self.cases {
            report.progress("deadline probe: \(probe.name)")
            if image.width != probe.side {
                image = tile // frees the previous size before the next is made
                image = Self.tiled(tile, side: probe.side)
            }
            let clock = ContinuousClock()
            let start = clock.now
            let token = CancellationToken(budget: Self.deadline, start: start)
            var kind = "finished"
            do {
                _ = try StillImageEncoder.encode(image, as: probe.format, quality: probe.quality, cancellation: token)
            } catch {
                kind = error.kind.rawValue
            }
            let overshoot = Stopwatch.milliseconds(clock.now - start - Self.deadline)
            let allowed = max(100, 0.1 * Stopwatch.milliseconds(Self.deadline))
            report.add(Figure(suite: "image", name: "image.deadline_overshoot.\(probe.name)", unit: "ms",
                              sample: Sample([overshoot]),
                              target: .init(text: String(format: "≤ %.0f ms past a 1 s deadline, error timeout", allowed),
                                            met: overshoot <= allowed && kind == SplatErrorKind.timeout.rawValue),
                              note: "encode of a \(probe.side)² RGBA image (\(image.pixels.count >> 20) MiB) ended with \(kind)",
                              details: [("width", .int(probe.side)), ("height", .int(probe.side)), ("outcome", .string(kind))]))
        }
    }

    /// `tile` repeated to fill a `side`×`side` image.
    static func tiled(_ tile: ImageBuffer, side: Int) -> ImageBuffer {
        let c = tile.channels, tileRow = tile.width * c
        var pixels = [UInt8](repeating: 0, count: side * side * c)
        _ = pixels.withUnsafeMutableBufferPointer { out in
            tile.pixels.withUnsafeBufferPointer { src in
                Parallel.forEachChunk(count: side, chunkSize: 64) { _, rows in
                    for y in rows {
                        let from = src.baseAddress! + (y % tile.height) * tileRow
                        var x = 0
                        while x < side {
                            let n = min(tile.width, side - x)
                            (out.baseAddress! + (y * side + x) * c).update(from: from, count: n * c)
                            x += n
                        }
                    }
                }
            }
        }
        return ImageBuffer(width: side, height: side, channels: c, pixels: pixels)
    }
}
