import Foundation
import SplatCore
import SplatFormats
import SplatRender

/// `info --stats`: `SceneStatistics.compute` on a decoded scene (the file's own frame, as the
/// CLI reports it), beside one plain streaming pass that sums every float of the same columns
/// and SH with the same threads and chunks — the memory-bandwidth floor of any statistic that
/// reads every value once. Thread counts as in the render suite; the target (≤ 150 ms
/// on the 3.4 M-splat stress scene) applies to all threads.
struct StatsSuite {
    let stopwatch: Stopwatch
    let report: Report

    func run(path: String, scene name: String, targetMilliseconds: Double?) throws {
        report.progress("stats \(path)")
        let scene = try SplatFile.decode(path: path).scene
        let fileBytes = DecodeInput.bytesOnDisk(path)
        let details: [(String, JSONScalar)] = [("input", .string(path)), ("splats", .int(scene.count)),
                                               ("sh_degree", .int(scene.shDegree)), ("decoded_bytes", .int(scene.decodedBytes))]
        for threads in RenderSuite.threadCounts {
            let sumName = "baseline.column_sum.\(name).t\(threads)"
            let sum = stopwatch.measure { Self.columnSum(scene, threads: threads) }
            report.add(Figure(suite: "stats", name: sumName, unit: "ms", sample: sum,
                              note: "one SIMD pass summing every column and the SH (the bytes the statistics read)",
                              details: details + [("threads", .int(threads))]))
            var last: SceneStatistics?
            let compute = stopwatch.measure { () -> SceneStatistics in
                let s = SceneStatistics.compute(scene, fileBytes: fileBytes, threads: threads)
                last = s
                return s
            }
            var figure = Figure(suite: "stats", name: "stats.\(name).t\(threads)", unit: "ms", sample: compute,
                                baseline: .init(figure: sumName, value: sum.median),
                                note: "SceneStatistics.compute: moments, SH bands, percentiles, robust box, overdraw",
                                details: details + [("threads", .int(threads)),
                                                    ("overdraw", .double(last?.overdraw?.ratio ?? .nan)),
                                                    ("effective_sh_degree", .int(last?.effectiveSHDegree ?? -1))])
            if let targetMilliseconds, threads == Parallel.processorCount {
                figure.target = .init(text: String(format: "≤ %.0f ms", targetMilliseconds),
                                      met: compute.median <= targetMilliseconds)
            }
            report.add(figure)
        }
    }

    /// Σ of every stored float, chunked like the statistics pass; returned so it is not elided.
    static func columnSum(_ scene: SplatScene, threads: Int) -> Double {
        let chunk = 4096
        let n = scene.count
        let chunks = (n + chunk - 1) / chunk
        var partial = [Double](repeating: 0, count: max(1, chunks))
        let per = scene.shFloatsPerSplat
        let sh = scene.sh.baseAddress!
        _ = partial.withUnsafeMutableBufferPointer { out in
            Parallel.forEachChunk(count: n, chunkSize: chunk, threads: threads) { c, range in
                func sum(_ p: UnsafePointer<Float>, _ lo: Int, _ hi: Int) -> Float {
                    var acc = SIMD16<Float>()
                    var i = lo
                    while i < hi {
                        acc += UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
                        i += 16
                    }
                    return acc.sum()
                }
                var total: Float = 0
                for column in SplatScene.Column.allCases {
                    total += sum(scene.columnBase(column), range.lowerBound, range.upperBound)
                }
                if per > 0 { total += sum(sh, range.lowerBound * per, range.upperBound * per) }
                out[c] = Double(total)
            }
        }
        return partial.reduce(0, +)
    }
}
