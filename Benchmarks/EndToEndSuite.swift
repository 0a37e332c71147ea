import Foundation
import SplatCore

/// `splatrender FILE --out t.png` as a user runs it: the release binary spawned once per run,
/// wall time from spawn to exit (start-up, decode, framing, prepare, one cold 512² frame, PNG
/// encode and write, and unmapping everything at exit), plus the child's peak resident set.
/// The baseline is the sum of the same stages measured in this process by the other suites,
/// so the ratio shows what the process adds on top of the stages: the render-form decode (SH
/// kept as codes, as a job decodes), the framing, the frame and the PNG encode. The renderer's
/// per-scene pass is not among them: a one-view job keeps no covariances, and for SPZ it skips
/// the count of unusable splats too (`DecodedScene.everySplatUsable`).
struct EndToEndSuite {
    let stopwatch: Stopwatch
    let report: Report

    func run(binary: String, input: String, scene: String, decodeFigure: String, targetMilliseconds: Double?,
             targetPeakMiB: Double? = nil) throws {
        report.progress("end to end: \(binary) \(input)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("splat-bench-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("t.png").path

        var peaks: [Int] = []
        var exact = true
        var walls: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<(stopwatch.warmUps + max(1, stopwatch.runs)) {
            let outcome = try ChildProcess.run(binary, [input, "--out", out], quiet: true, measuringPeakMemory: true)
            guard outcome.succeeded, FileManager.default.fileExists(atPath: out) else {
                throw BenchmarkError("\(binary) \(input) --out \(out) exited with \(outcome.status)")
            }
            walls.append(outcome.wallMilliseconds)
            cpu.append(outcome.cpuMilliseconds)
            peaks.append(outcome.maxResidentBytes)
            exact = exact && outcome.peakIsExact
            try? FileManager.default.removeItem(atPath: out)
        }
        let wall = Sample(Array(walls.dropFirst(stopwatch.warmUps)), warmUp: walls.first,
                          cpu: Array(cpu.dropFirst(stopwatch.warmUps)))
        let details: [(String, JSONScalar)] = [("input", .string(input)), ("binary", .string(binary)),
                                               ("command", .string("splatrender \(input) --out t.png"))]

        let all = Parallel.processorCount
        let parts = [decodeFigure, "render.\(scene).autoframe", "render.\(scene).512.t\(all).total",
                     "render.\(scene).512.png_encode"]
        let medians = parts.compactMap { name in report.figures.first { $0.name == name }?.sample.median }
        var figure = Figure(suite: "e2e", name: "e2e.splatrender.\(scene)", unit: "ms", sample: wall, details: details)
        if medians.count == parts.count {
            figure.baseline = .init(figure: "in-process stages (sum)", value: medians.reduce(0, +))
            figure.note = "stages: " + zip(parts, medians).map { String(format: "%@ %.0f", $0.0, $0.1) }.joined(separator: " + ")
                + " (ms); the rest is process start, a cold first frame, file write and exit"
        }
        if let targetMilliseconds {
            figure.target = .init(text: String(format: "≤ %.1f s wall", targetMilliseconds / 1000),
                                  met: wall.median <= targetMilliseconds)
        }
        report.add(figure)

        let mib = 1024.0 * 1024
        var peak = Figure(suite: "e2e", name: "e2e.peak_rss.\(scene)", unit: "MiB",
                          sample: Sample(peaks.dropFirst(stopwatch.warmUps).map { Double($0) / mib }, warmUp: peaks.first.map { Double($0) / mib }),
                          note: exact ? "peak resident set of the splatrender process (GNU time)"
                                      : "upper bound: wait4 ru_maxrss includes this process's peak (no /usr/bin/time)",
                          details: details)
        if let targetPeakMiB {
            peak.target = .init(text: String(format: "≤ %.0f MiB", targetPeakMiB), met: peak.sample.median <= targetPeakMiB)
        }
        report.add(peak)
    }
}
