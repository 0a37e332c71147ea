import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// A scene the render suite draws, with the time target per image side (all threads).
struct RenderInput {
    var scene: String
    var path: String
    var targets: [Int: Double] = [:]
}

/// Renderer stages per scene, resolution and thread count, from the CLI's default view (auto
/// framing, 50° vertical field of view, transparent background):
/// `prepare` (per-scene covariances, `Renderer.init`), then per frame `preprocess`, `bin_sort`,
/// `composite` (the renderer's own stage clocks) and `total` (the wall time of `render`), and
/// `png_encode` of the frame. The one-thread figure is the baseline of the all-threads one, so
/// the ratio is the inverse of the thread scaling. Frames after the warm-up reuse the renderer's
/// per-frame tables (a turntable's steady state); the warm-up frame, which allocates them, is
/// kept as `warm_up`.
struct RenderSuite {
    let stopwatch: Stopwatch
    let report: Report
    static let sides = [256, 512, 1024]
    static let fovYDegrees = 50.0

    /// Thread counts measured: one and all cores, plus two when there are more (the issue's
    /// scaling target is about two threads).
    static var threadCounts: [Int] {
        let all = Parallel.processorCount
        return all == 1 ? [1] : all > 2 ? [1, 2, all] : [1, all]
    }

    /// Decodes (into the form render jobs use: SPZ's SH kept as its codes) and frame-converts the
    /// scene once, then measures every stage.
    func run(_ input: RenderInput) throws {
        report.progress("render \(input.path)")
        let decoded = try SplatFile.decode(path: input.path, sh: .quantized)
        let scene = decoded.scene
        FrameDecision.decide(for: scene).apply(to: scene)
        let prefix = "render.\(input.scene)"
        let details: [(String, JSONScalar)] = [("input", .string(input.path)), ("splats", .int(scene.count)),
                                               ("sh_degree", .int(scene.quantizedSH?.degree ?? scene.shDegree)),
                                               ("sh_form", .string(scene.quantizedSH == nil ? "float32" : "codes"))]

        var framing: Framing?
        let autoframe = stopwatch.measure { () -> Framing in
            let f = AutoFramer.frame(scene, width: 512, height: 512, fovYDegrees: Self.fovYDegrees)
            framing = f
            return f
        }
        report.add(Figure(suite: "render", name: "\(prefix).autoframe", unit: "ms", sample: autoframe,
                          note: "robust box and framing sphere (the CLI's default camera)", details: details))
        guard let framing else { throw BenchmarkError("no framing") }
        let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                    elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: Self.fovYDegrees)

        var renderers: [Int: Renderer] = [:]
        var prepareT1: Double?
        for threads in Self.threadCounts {
            var renderer: Renderer?
            let prepare = stopwatch.measure { () -> Renderer in
                let r = Renderer(scene: scene, threads: threads)
                renderer = r
                return r
            }
            renderers[threads] = renderer
            report.add(scaling(Figure(suite: "render", name: "\(prefix).prepare.t\(threads)", unit: "ms", sample: prepare,
                                      details: details + [("threads", .int(threads))]),
                               oneThread: prepareT1, threads: threads, name: "\(prefix).prepare.t1"))
            if threads == 1 { prepareT1 = prepare.median }
        }

        for side in Self.sides {
            var oneThread: [String: Double] = [:]
            var lastImage: ImageBuffer?
            for threads in Self.threadCounts {
                guard let renderer = renderers[threads] else { continue }
                let settings = RenderSettings(width: side, height: side, threads: threads)
                var stats: [RenderStats] = []
                let total = try stopwatch.measure { () throws -> RenderResult in
                    let result = try renderer.render(camera: camera, settings: settings)
                    stats.append(result.stats)
                    lastImage = result.image
                    return result
                }
                // The stage clocks of the measured runs (the first entries are the warm-ups).
                let measured = stats.suffix(total.runs)
                let first = stats.first
                let stages: [(String, Sample)] = [
                    ("preprocess", Sample(measured.map { $0.preprocessSeconds * 1000 }, warmUp: first.map { $0.preprocessSeconds * 1000 })),
                    ("bin_sort", Sample(measured.map { $0.binSortSeconds * 1000 }, warmUp: first.map { $0.binSortSeconds * 1000 })),
                    ("composite", Sample(measured.map { $0.compositeSeconds * 1000 }, warmUp: first.map { $0.compositeSeconds * 1000 })),
                    ("total", total),
                ]
                let frameDetails = details + [("width", .int(side)), ("height", .int(side)), ("threads", .int(threads)),
                                              ("visible_splats", .int(measured.last?.visibleSplats ?? 0)),
                                              ("tile_pairs", .int(measured.last?.tilePairs ?? 0))]
                for (stage, sample) in stages {
                    let name = "\(prefix).\(side).t\(threads).\(stage)"
                    var figure = scaling(Figure(suite: "render", name: name, unit: "ms", sample: sample, details: frameDetails),
                                         oneThread: oneThread[stage], threads: threads,
                                         name: "\(prefix).\(side).t1.\(stage)")
                    if stage == "total" {
                        figure = judged(figure, input: input, side: side, threads: threads)
                    }
                    report.add(figure)
                    if threads == 1 { oneThread[stage] = sample.median }
                }
            }
            if let image = lastImage {
                let sizeDetails = details + [("width", .int(side)), ("height", .int(side))]
                let deflate = try stopwatch.measure { try RawBaselines.deflate(image.pixels, level: 6) }
                let deflateName = "baseline.deflate_pixels.\(input.scene).\(side)"
                report.add(Figure(suite: "render", name: deflateName, unit: "ms", sample: deflate,
                                  note: "libdeflate level 6 over the raw pixel bytes (no PNG filtering)", details: sizeDetails))
                let png = try stopwatch.measure { try PNGWriter.encode(image) }
                var pngFigure = Figure(suite: "render", name: "\(prefix).\(side).png_encode", unit: "ms", sample: png,
                                       baseline: .init(figure: deflateName, value: deflate.median),
                                       note: "PNGWriter (row filters, libdeflate level \(PNGWriter.defaultCompressionLevel) in bands), all cores, RGBA",
                                       details: sizeDetails)
                pngFigure.target = .init(text: String(format: "≤ %.1f× raw libdeflate", ImageSuite.pngTimeTarget),
                                         met: pngFigure.ratio.map { $0 <= ImageSuite.pngTimeTarget })
                report.add(pngFigure)
            }
        }
    }

    /// Adds the one-thread baseline and the scaling note; the scaling target applies to two threads.
    private func scaling(_ figure: Figure, oneThread: Double?, threads: Int, name: String) -> Figure {
        guard threads > 1, let oneThread else { return figure }
        var f = figure
        f.baseline = .init(figure: name, value: oneThread)
        let speedup = oneThread / f.sample.median
        f.note = [f.note, String(format: "%.2f× scaling over 1 thread", speedup)].compactMap { $0 }.joined(separator: "; ")
        return f
    }

    /// Marks the targets on a frame total: the time target at all threads, and the
    /// 2-thread scaling target.
    private func judged(_ figure: Figure, input: RenderInput, side: Int, threads: Int) -> Figure {
        var f = figure
        var parts: [(String, Bool)] = []
        if threads == Parallel.processorCount, let limit = input.targets[side] {
            parts.append((String(format: "≤ %.0f ms", limit), f.sample.median <= limit))
        }
        if threads == 2, let ratio = f.ratio {
            parts.append(("≥ 1.8× scaling", 1 / ratio >= 1.8))
        }
        if let warm = f.sample.warmUp {
            f.note = [f.note, String(format: "first frame %.1f ms", warm)].compactMap { $0 }.joined(separator: "; ")
        }
        guard !parts.isEmpty else { return f }
        f.target = .init(text: parts.map(\.0).joined(separator: ", "), met: parts.allSatisfy(\.1))
        return f
    }
}
