import Foundation
import SplatCore
import SplatFormats

/// Peak memory of a decode: each input is decoded once in a child process (`splat-bench
/// decode-peak FILE`, run under GNU time, see `ChildProcess`), and the child's peak resident set
/// is compared with what a decode cannot avoid holding at once — the decoded scene plus the
/// mapped file — with 10 % headroom. The child also reports its own high-water mark (`VmHWM`)
/// before and after decoding: before is the runtime and libraries, which the target's 10 % covers
/// on a large scene but not on a small one (small inputs carry no target).
struct MemorySuite {
    let report: Report

    func run(_ inputs: [DecodeInput]) throws {
        for input in inputs {
            report.progress("decode peak memory \(input.path)")
            let outcome = try ChildProcess.run(ChildProcess.currentExecutable, ["decode-peak", input.path], captureOutput: true,
                                               measuringPeakMemory: true)
            guard outcome.succeeded,
                  let object = try? JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any],
                  let decoded = object["decoded_bytes"] as? Int, let before = object["hwm_before"] as? Int,
                  let after = object["hwm_after"] as? Int, let file = object["file_bytes"] as? Int else {
                throw BenchmarkError("decode-peak \(input.path) failed (exit \(outcome.status))")
            }
            let mib = 1024.0 * 1024
            let peakBytes = outcome.peakIsExact ? outcome.maxResidentBytes : after
            let peak = Double(peakBytes) / mib
            let floor = Double(decoded + file) / mib
            var figure = Figure(suite: "memory", name: "memory.\(input.figure)", unit: "MiB", sample: Sample([peak]),
                                baseline: .init(figure: "decoded + file bytes", value: floor),
                                note: String(format: "child high-water %.1f MiB before decoding; decoded %.1f MiB, file %.1f MiB",
                                             Double(before) / mib, Double(decoded) / mib, Double(file) / mib),
                                details: [("input", .string(input.path)), ("hwm_before_bytes", .int(before)),
                                          ("hwm_after_bytes", .int(after)), ("peak_rss_bytes", .int(peakBytes)),
                                          ("decoded_bytes", .int(decoded)), ("file_bytes", .int(file))])
            if input.isStress {
                figure.target = .init(text: "≤ decoded + file + 10 %", met: peak <= floor * 1.1)
            }
            report.add(figure)
        }
    }

    /// The child side: decode `path` once and print the byte counts as one JSON object.
    static func decodeOnce(_ arguments: [String]) -> Int32 {
        let tool = ToolCommand("decode-peak", synopsis: "FILE")
        guard let path = arguments.first else { return tool.usage() }
        let before = PeakResident.bytes ?? 0
        return tool.run {
            let decoded = try SplatFile.decode(path: path)
            print("{\"hwm_before\":\(before),\"splats\":\(decoded.scene.count),\"decoded_bytes\":\(decoded.scene.decodedBytes),"
                  + "\"file_bytes\":\(DecodeInput.bytesOnDisk(path)),\"hwm_after\":\(PeakResident.bytes ?? 0)}")
            return 0
        }
    }
}

/// This process's peak resident set so far, in bytes: `VmHWM` from `/proc/self/status`, which
/// belongs to the address space and so starts afresh at `execve` (unlike `ru_maxrss`).
enum PeakResident {
    static var bytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }
}
