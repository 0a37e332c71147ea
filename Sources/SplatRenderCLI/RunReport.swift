import SplatCore
import SplatFormats

/// The machine-readable account of one `render` or `convert` run, written by `--report FILE.json`
/// and printed by `--verbose --json`: input, status (with the error and exit status on
/// failure), header facts, ceiling verdict, frame decision, camera, outputs and per-stage times.
final class RunReport {
    let command: CommandName
    let input: String
    var error: SplatError?
    var exitCode: ExitCode = .ok
    var header: SceneHeader?
    var verdict: CeilingVerdict?
    var decodedCount: Int?
    var decision: FrameDecision?
    var camera: JSONValue?
    var outputs: [JSONValue] = []
    var renderStats: JSONValue?
    var warnings: [String] = []
    private(set) var timings: [(String, Double)] = []
    private let started = ContinuousClock.now

    init(command: CommandName, input: String) {
        self.command = command
        self.input = input
    }

    /// Runs `body` and records its wall time under `stage`.
    func time<T, E: Error>(_ stage: String, _ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer { timings.append((stage, Self.milliseconds(ContinuousClock.now - start))) }
        return try body()
    }

    /// Marks the run failed.
    func failed(_ error: SplatError, _ code: ExitCode) {
        self.error = error
        exitCode = code
    }

    /// Adds warnings not already listed.
    func note(_ new: [String]) {
        for w in new where !warnings.contains(w) { warnings.append(w) }
    }

    var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("command", .string(command.rawValue)),
            ("input", .string(input)),
            ("status", .string(error == nil ? "ok" : "error")),
            ("exit_code", .int(Int(exitCode.rawValue))),
        ]
        if let error { fields.append(("error", error.json)) }
        if let header {
            fields += header.jsonFields
            fields.append(("camera_hints", header.cameraHintsJSON))
        }
        if let decodedCount { fields.append(("decoded_count", .int(decodedCount))) }
        if let verdict { fields.append(("ceiling", verdict.json)) }
        if let decision { fields.append(("frame_decision", decision.json)) }
        if let camera { fields.append(("camera", camera)) }
        if let renderStats { fields.append(("render_stats", renderStats)) }
        fields.append(("outputs", .array(outputs)))
        fields.append(("warnings", .array(warnings.map { .string($0) })))
        var times = timings.map { ($0.0, JSONValue.double(($0.1 * 1000).rounded() / 1000)) }
        times.append(("total", .double((Self.milliseconds(ContinuousClock.now - started) * 1000).rounded() / 1000)))
        fields.append(("timings_ms", .object(times)))
        return .object(fields)
    }

    /// One line per stage, for `--verbose`.
    var timingSummary: String {
        timings.map { "\($0.0) \(Self.format($0.1)) ms" }.joined(separator: ", ")
    }

    static func milliseconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) * 1000 + Double(atto) / 1e15
    }

    static func format(_ ms: Double) -> String {
        ms >= 100 ? String(Int(ms.rounded())) : String((ms * 10).rounded() / 10)
    }

    /// Writes the report to `path` atomically; returns the error when that fails.
    func write(to path: String) -> SplatError? {
        do throws(SplatError) {
            try AtomicFileWriter.write(Array((json.serialized() + "\n").utf8), to: path)
            return nil
        } catch {
            return error
        }
    }
}
