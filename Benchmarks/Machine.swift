import Foundation
import SplatCore

/// What the figures were measured on: CPU model and core counts from `/proc/cpuinfo`, the
/// checkout's commit, and the load average when the run started (figures from a busy machine
/// are slower and noisier; the README asks for a quiet one).
struct Machine: Sendable {
    var cpuModel: String
    /// `processor` entries in `/proc/cpuinfo`.
    var cores: Int
    /// Cores this process may use (what "all threads" means below).
    var usableCores: Int
    var commit: String?
    var loadAverage: Double?

    static func current(packageRoot: URL) -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        var model = "unknown"
        var processors = 0
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            if key == "processor" { processors += 1 }
            if key == "model name", model == "unknown" { model = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))
            .flatMap { $0.split(separator: " ").first }.flatMap { Double($0) }
        return Machine(cpuModel: model, cores: max(processors, 1), usableCores: Parallel.processorCount,
                       commit: gitCommit(in: packageRoot), loadAverage: load)
    }

    /// `git rev-parse HEAD` in the package root; nil without git or outside a checkout.
    private static func gitCommit(in root: URL) -> String? {
        guard let output = try? ChildProcess.run("/usr/bin/env", ["git", "-C", root.path, "rev-parse", "HEAD"],
                                                 captureOutput: true, quiet: true),
              output.status == 0 else { return nil }
        let commit = output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return commit.isEmpty ? nil : commit
    }

    var jsonObject: String {
        "{\"cpu\":\(JSONString.quoted(cpuModel)),\"cores\":\(cores),\"usable_cores\":\(usableCores),"
            + "\"commit\":\(commit.map(JSONString.quoted) ?? "null"),"
            + "\"load1\":\(loadAverage.map { JSONScalar.double($0).json } ?? "null")}"
    }

    var summary: String {
        "\(cpuModel), \(cores) cores (\(usableCores) usable), commit \(commit.map { String($0.prefix(12)) } ?? "unknown"), "
            + "load \(loadAverage.map { String(format: "%.2f", $0) } ?? "?") at start"
    }
}
