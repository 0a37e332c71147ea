import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// `splat-bench render-frame FILE [--side N] [--threads T] [--repeat R] [--per-frame] [--out F.png]`: decodes
/// and frames the scene once (the render suite's default view), then renders R frames and prints
/// the median and best wall time, the median CPU time and the stage clocks. A loop to put under
/// `perf record` / `valgrind --tool=callgrind` and an A/B check between builds; `--out` writes
/// the last frame so two builds' images can be compared byte for byte. `--per-frame` renders as
/// a one-view job does, with Σ recomputed in each frame instead of prepared once.
enum RenderFrameTool {
    static func run(_ arguments: [String]) -> Int32 {
        var path: String?
        var side = 512
        var threads: Int?
        var repeats = 9
        var out: String?
        var preparation = ScenePreparation.prepared
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--side": side = rest.popFirst().flatMap { Int($0) } ?? side
            case "--threads": threads = rest.popFirst().flatMap { Int($0) }
            case "--repeat": repeats = rest.popFirst().flatMap { Int($0) } ?? repeats
            case "--out": out = rest.popFirst()
            case "--per-frame": preparation = .perFrame
            default: path = argument
            }
        }
        guard let path else {
            FileHandle.standardError.write(Data("usage: splat-bench render-frame FILE [--side N] [--threads T] [--repeat R] [--per-frame] [--out F.png]\n".utf8))
            return 2
        }
        do {
            let scene = try SplatFile.decode(path: path, sh: .quantized).scene
            FrameDecision.decide(for: scene).apply(to: scene)
            let framing = AutoFramer.frame(scene, width: side, height: side, fovYDegrees: RenderSuite.fovYDegrees)
            let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                        elevationDegrees: AutoFramer.defaultElevationDegrees,
                                        fovYDegrees: RenderSuite.fovYDegrees)
            let renderer = Renderer(scene: scene, threads: threads, preparation: preparation)
            let settings = RenderSettings(width: side, height: side, threads: threads)
            var stats: [RenderStats] = []
            var last: RenderResult?
            let sample = try Stopwatch(warmUps: 1, runs: max(1, repeats)).measure { () throws -> Int in
                let result = try renderer.render(camera: camera, settings: settings)
                stats.append(result.stats)
                last = result
                return result.stats.tilePairs
            }
            let measured = stats.suffix(sample.runs)
            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] * 1000 }
            print(String(format: "%@ %d² t%@: wall %.1f ms (best %.1f), cpu %.1f ms; preprocess %.1f, bin+sort %.1f, composite %.1f ms; %d visible, %d pairs",
                         (path as NSString).lastPathComponent, side, threads.map(String.init) ?? "all",
                         sample.median, sample.min, sample.cpuMedian ?? 0,
                         median(measured.map(\.preprocessSeconds)), median(measured.map(\.binSortSeconds)),
                         median(measured.map(\.compositeSeconds)), measured.last?.visibleSplats ?? 0,
                         measured.last?.tilePairs ?? 0))
            if let out, let image = last?.image {
                try Data(PNGWriter.encode(image)).write(to: URL(fileURLWithPath: out))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("render-frame: \(error)\n".utf8))
            return 1
        }
    }
}
