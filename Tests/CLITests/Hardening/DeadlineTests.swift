import Foundation
import Testing
import SplatCore
import TestSupport

/// Issue 12, item 7: `--timeout` is a hard deadline inside every stage. Before, it was checked
/// only between stages: a 16384² render with `--timeout 3` ran 37.6 s and exited 0, a 3.4M-splat
/// decode with `--timeout 0.001` took 1.16 s.
///
/// Each case first runs the job without a deadline and reads where its stages lie from the
/// report; then it runs it again with the deadline 40 % into the stage under test. The timed
/// run must end with `timeout` (124) from that stage, with nothing written, far sooner than the
/// untimed one. The overshoot (deadline → exit) is printed; the bound asserted is generous,
/// because the machine is loaded: the target (deadline + max(100 ms, 10 %)) is for release
/// builds, and these are debug.
@Suite(.serialized) struct HardeningDeadlineTests {
    struct Stage: Sendable, CustomStringConvertible {
        var name: String
        /// The report's timing of the stage.
        var timing: String
        /// `error.stage` of the report when the deadline stops it there.
        var failedStage: String
        /// Where in the stage the deadline goes: early enough that a faster run (the load
        /// changes) is still inside it, late enough that a slower start is not still before it.
        var fraction: Double
        var description: String { name }
    }

    static let decode = Stage(name: "decode", timing: "decode", failedStage: "input", fraction: 0.3)
    static let render = Stage(name: "render", timing: "render", failedStage: "render", fraction: 0.3)
    static let encode = Stage(name: "encode", timing: "encode_png", failedStage: "encode", fraction: 0.4)

    /// The report's `timings_ms` in the order the stages ran (a parsed dictionary forgets it).
    static func orderedTimings(_ report: String) throws -> [(String, Double)] {
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let start = try #require(text.range(of: "\"timings_ms\""))
        let body = text[start.upperBound...].prefix { $0 != "}" }
        let regex = try NSRegularExpression(pattern: "\"([a-z_]+)\":\\s*([0-9.]+)")
        let body16 = String(body)
        return regex.matches(in: body16, range: NSRange(body16.startIndex..., in: body16)).compactMap { match in
            guard let name = Range(match.range(at: 1), in: body16), let value = Range(match.range(at: 2), in: body16) else { return nil }
            return (String(body16[name]), Double(body16[value]) ?? 0)
        }
    }

    /// An ASCII PLY of 25,000 SH-degree-3 splats (12 MB): parsing the text is the slow part,
    /// the rest of the job (rendered with `--sh-degree 0`) is cheap.
    static func asciiPLY(at url: URL) throws {
        let properties = ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<45).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
        let count = 25_000
        var random = SplitMix64(seed: 3)
        let rest = String(repeating: " 0.01000", count: 45)
        let templates: [[UInt8]] = (0..<256).map { _ in
            let p = (0..<6).map { _ in String(format: "%.5f", Double.random(in: -1...1, using: &random)) }
            return Array((p.joined(separator: " ") + rest + " 2.00000 -4.00000 -4.00000 -4.00000 1.00000 0.00000 0.00000 0.00000\n").utf8)
        }
        var text = Array(("ply\nformat ascii 1.0\nelement vertex \(count)\n" + properties.map { "property float \($0)\n" }.joined()
            + "end_header\n").utf8)
        for k in 0..<count { text += templates[k % templates.count] }
        try Data(text).write(to: url)
    }

    static func arguments(for stage: String, in dir: URL) throws -> [String] {
        let image = dir.appendingPathComponent("x.png").path
        switch stage {
        case "decode":
            let ply = dir.appendingPathComponent("ascii.ply")
            try asciiPLY(at: ply)
            return [ply.path, "--out", image, "--resolution", "16x16", "--sh-degree", "0"]
        case "render":
            // JPEG: its encoder (libturbojpeg) is quick, so a run faster than the untimed one
            // cannot slip past the render into a long encode.
            return [Hardening.fruit, "--out", dir.appendingPathComponent("x.jpg").path, "--resolution", "512x512"]
        default:
            // Looking away from the scene: compositing is cheap, the PNG of 1024² is not.
            return [Hardening.tiny, "--out", image, "--resolution", "1024x1024", "--camera-pos", "0,0,50", "--camera-target", "0,0,100"]
        }
    }

    @Test(arguments: [decode, render, encode])
    func deadlineStopsInsideTheStage(_ stage: Stage) throws {
        let dir = try Hardening.folder("deadline-\(stage.name)")
        let job = try Self.arguments(for: stage.name, in: dir)
        let baselineReport = dir.appendingPathComponent("untimed.json").path
        let untimed = try Hardening.run(job + ["--report", baselineReport], in: dir, timeout: .seconds(120))
        try #require(untimed.status == 0, "\(untimed.errText)")
        let timings = try Self.orderedTimings(baselineReport)
        let position = try #require(timings.firstIndex { $0.0 == stage.timing }, "\(timings)")
        let duration = timings[position].1
        let before = timings[..<position].map(\.1).reduce(0, +)
        try #require(duration > 300, "the \(stage.name) stage took only \(duration) ms: \(timings)")
        for image in ["x.png", "x.jpg"] { FileIO.remove(dir.appendingPathComponent(image).path) }

        let deadline = (before + stage.fraction * duration) / 1000
        let timedReport = dir.appendingPathComponent("timed.json").path
        let timed = try Hardening.run(job + ["--timeout", String(format: "%.3f", deadline), "--report", timedReport], in: dir,
                                      timeout: .seconds(120))
        #expect(timed.termination == .exited(124), "\(String(describing: timed.termination)): \(timed.errText)")
        let report = try Hardening.json([UInt8](Data(contentsOf: URL(fileURLWithPath: timedReport))))
        let error = report["error"] as? [String: Any]
        #expect(error?["kind"] as? String == "timeout")
        #expect(error?["stage"] as? String == stage.failedStage, "stopped at \(error?["stage"] ?? "?"): \(error?["message"] ?? "")")
        // Rolled back: no image, no temporary.
        #expect(Set(Hardening.files(under: dir)).isSubset(of: ["ascii.ply", "untimed.json", "timed.json"]), "\(Hardening.files(under: dir))")

        let inJob = ((report["timings_ms"] as? [String: Double])?["total"] ?? .nan) / 1000 - deadline
        let wall = timed.seconds - deadline
        print(String(format: "deadline in %@: untimed %.3f s (stage %.3f s from %.3f s); deadline %.3f s; exit after %.3f s: overshoot %.0f ms in the job, %.0f ms wall (with process start); %@",
                     stage.name, untimed.seconds, duration / 1000, before / 1000, deadline, timed.seconds, inJob * 1000, wall * 1000,
                     error?["message"] as? String ?? ""))
        #expect(wall < max(1.0, 0.5 * deadline), "overshoot \(wall) s")
        #expect(timed.seconds < 0.8 * untimed.seconds, "timed \(timed.seconds) s, untimed \(untimed.seconds) s")
    }
}
