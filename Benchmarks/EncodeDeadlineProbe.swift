import Foundation
import SplatCore
import SplatImage

/// How far past its deadline an encode of a huge image runs: `--timeout` is a hard deadline,
/// met when a job stops within deadline + max(100 ms, 10 %). The image is the 1024² biker
/// render tiled to the requested side (realistic compressibility at 1 GiB); the token expires
/// `deadline` after the encode starts, well before the encode could finish.
struct EncodeDeadlineProbe {
    let report: Report
    static let deadline = Duration.seconds(1)

    struct Case {
        var format: ImageFormat
        var side: Int
    }

    static let cases = [Case(format: .png, side: 16384)]

    func run() throws {
        let tile = try ImageSuite.render(try BenchmarkPaths(shared: nil).corpusFile("spz/biker.spz"), sides: [1024])[0]
        for probe in Self.cases {
            report.progress("deadline probe: \(probe.format) \(probe.side)²")
            let image = Self.tiled(tile, side: probe.side)
            let clock = ContinuousClock()
            let start = clock.now
            let token = CancellationToken(budget: Self.deadline, start: start)
            var kind = "finished"
            do {
                _ = try StillImageEncoder.encode(image, as: probe.format, cancellation: token)
            } catch {
                kind = error.kind.rawValue
            }
            let overshoot = Stopwatch.milliseconds(clock.now - start - Self.deadline)
            let allowed = max(100, 0.1 * Stopwatch.milliseconds(Self.deadline))
            report.add(Figure(suite: "image", name: "image.deadline_overshoot.\(probe.format.rawValue).\(probe.side)", unit: "ms",
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
        pixels.withUnsafeMutableBufferPointer { out in
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
