import Foundation
import SplatCore

/// Where figures go: one JSON line per figure as soon as it is measured (stdout, or the
/// `--json` file), a progress line on stderr, and at the end a readable table with each target
/// marked met or not met (on stderr when the JSON lines own stdout, else on stdout).
final class Report {
    private let machine: Machine
    private let jsonFile: FileHandle?
    private(set) var figures: [Figure] = []

    init(machine: Machine, jsonPath: String?) throws {
        self.machine = machine
        if let jsonPath {
            // open(2), not FileManager.createFile: that writes a temporary file and renames it
            // over the path, which turned /dev/null (the deadline probe's sink) into a regular
            // file when run as root.
            let descriptor = open(jsonPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw BenchmarkError("cannot write \(jsonPath): \(String(cString: strerror(errno)))")
            }
            jsonFile = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        } else {
            jsonFile = nil
        }
    }

    func add(_ figure: Figure) {
        figures.append(figure)
        let line = jsonLine(figure) + "\n"
        if let jsonFile {
            jsonFile.write(Data(line.utf8))
        } else {
            FileHandle.standardOutput.write(Data(line.utf8))
        }
        progress("  \(figure.name): \(Self.number(figure.sample.median)) \(figure.unit)"
                 + (figure.ratio.map { String(format: " (%.2f× %@)", $0, figure.baseline?.figure ?? "") } ?? ""))
    }

    func progress(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    func jsonLine(_ f: Figure) -> String {
        var fields: [(String, String)] = [
            ("machine", machine.jsonObject),
            ("suite", JSONString.quoted(f.suite)),
            ("figure", JSONString.quoted(f.name)),
            ("median", JSONScalar.double(f.sample.median).json),
            ("min", JSONScalar.double(f.sample.min).json),
            ("max", JSONScalar.double(f.sample.max).json),
            ("warm_up", f.sample.warmUp.map { JSONScalar.double($0).json } ?? "null"),
            ("runs", String(f.sample.runs)),
            ("unit", JSONString.quoted(f.unit)),
            ("cpu_median", f.sample.cpuMedian.map { JSONScalar.double($0).json } ?? "null"),
            ("baseline", f.baseline.map { JSONScalar.double($0.value).json } ?? "null"),
            ("baseline_figure", f.baseline.map { JSONString.quoted($0.figure) } ?? "null"),
            ("ratio", f.ratio.map { JSONScalar.double($0).json } ?? "null"),
            ("target", f.target.map { JSONString.quoted($0.text) } ?? "null"),
            ("met", f.target?.met.map { JSONScalar.bool($0).json } ?? "null"),
            ("note", f.note.map(JSONString.quoted) ?? "null"),
        ]
        fields += f.details.map { ($0.0, $0.1.json) }
        return "{" + fields.map { "\(JSONString.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// The table, grouped by suite; notes go on an indented line under their figure.
    func table() -> String {
        let header = ["figure", "median", "min", "max", "unit", "cpu", "baseline", "ratio", "target", "status"]
        var rows: [[String]] = []
        var notes: [Int: String] = [:]
        var lastSuite: String?
        for f in figures {
            if f.suite != lastSuite {
                rows.append(["[\(f.suite)]"] + Array(repeating: "", count: header.count - 1))
                lastSuite = f.suite
            }
            let baseline = f.baseline.map { "\(Self.number($0.value)) \($0.figure)" } ?? "-"
            let status: String
            switch f.target?.met {
            case .some(true): status = "met"
            case .some(false): status = "NOT MET"
            case .none: status = f.target == nil ? "" : "n/a"
            }
            rows.append([f.name, Self.number(f.sample.median), Self.number(f.sample.min), Self.number(f.sample.max), f.unit,
                         f.sample.cpuMedian.map(Self.number) ?? "-", baseline, f.ratio.map { String(format: "%.2f", $0) } ?? "-", f.target?.text ?? "", status])
            if let note = f.note { notes[rows.count - 1] = note }
        }
        var widths = header.map(\.count)
        for row in rows where !row[0].hasPrefix("[") {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return (1...3).contains(i) || i == 5 || i == 7 ? pad + cell : cell + pad
            }.joined(separator: " | ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
        var out = "machine: \(machine.summary)\n"
        out += line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for (i, row) in rows.enumerated() {
            out += (row[0].hasPrefix("[") ? row[0] : line(row)) + "\n"
            if let note = notes[i] { out += "    ↳ \(note)\n" }
        }
        return out
    }

    /// The figures that carry a target, as a Markdown table (for the README's Performance
    /// section), with the floor or scaling note that explains each.
    func targetTable() -> String {
        let judged = figures.filter { $0.target != nil }
        guard !judged.isEmpty else { return "" }
        var out = "| figure | median (min–max) | CPU | baseline | ratio | target | status | note |\n|---|---|---|---|---|---|---|---|\n"
        for f in judged {
            let measured = "\(Self.number(f.sample.median)) \(f.unit) (\(Self.number(f.sample.min))–\(Self.number(f.sample.max)))"
            let baseline = f.baseline.map { "\(Self.number($0.value)) \(f.unit) `\($0.figure)`" } ?? "–"
            let status = f.target?.met.map { $0 ? "met" : "**not met**" } ?? "n/a"
            let cpu = f.sample.cpuMedian.map { "\(Self.number($0)) ms" } ?? "–"
            out += "| `\(f.name)` | \(measured) | \(cpu) | \(baseline) | \(f.ratio.map { String(format: "%.2f", $0) } ?? "–") | "
                + "\(f.target?.text ?? "") | \(status) | \((f.note ?? "").replacingOccurrences(of: "|", with: "\\|")) |\n"
        }
        return out
    }

    /// Targets met / judged, for the closing line.
    var targetSummary: String {
        let judged = figures.compactMap { $0.target?.met }
        return "targets: \(judged.filter { $0 }.count) of \(judged.count) met"
    }

    /// Three significant figures, never scientific notation.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "-" }
        let a = abs(v)
        if a >= 100 { return String(format: "%.0f", v) }
        if a >= 10 { return String(format: "%.1f", v) }
        if a >= 1 { return String(format: "%.2f", v) }
        return String(format: "%.3f", v)
    }
}
