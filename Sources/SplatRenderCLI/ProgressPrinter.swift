import Foundation
import SplatCore
import SplatService

/// Progress on standard error, in one of three forms:
/// - `line`: one line redrawn in place (`\r`), with the stage, counts, elapsed time and ETA —
///   the default when stderr is a terminal;
/// - `json`: one NDJSON event per step, `{"stage":"render","done":3,"total":36,"ms":1234.5,"input":"a.ply"}`,
///   for a supervising process;
/// - `none`: nothing — the default when stderr is not a terminal.
/// `--progress [line|json|none|auto]` chooses; `--quiet` turns the default off, but an explicit
/// `--progress` still applies. Safe to call from several threads.
final class ProgressPrinter: @unchecked Sendable {
    enum Mode: Equatable {
        case none
        case line
        case json
    }

    let mode: Mode
    private let sink: OutputSink
    private let lock = NSLock()
    private var lineShown = false
    private var lastDraw: ContinuousClock.Instant?
    private var stageStart: (stage: String, input: String?, ms: Double, done: Int)?
    private var files: ProgressEvent?
    private var latest: ProgressEvent?

    init(mode: Mode, sink: OutputSink) {
        self.mode = mode
        self.sink = sink
    }

    /// The mode the command line asks for.
    convenience init(_ context: CommandContext) {
        let parsed = context.parsed
        let mode: Mode
        switch parsed.choice(.progress) ?? "auto" {
        case "none": mode = .none
        case "json": mode = .json
        case "line": mode = .line
        default: mode = context.stderr.isTerminal ? .line : .none
        }
        self.init(mode: context.quiet && !parsed.isGiven(.progress) ? .none : mode, sink: context.stderr)
    }

    /// A failed input as an NDJSON event: `{"stage":"failed","input":…,"exit_code":…,"error":{…}}`.
    func failed(_ error: SplatError, input: String, exitCode: Int32) {
        let event = JSONValue.object([("stage", .string("failed")), ("input", .string(input)),
                                      ("exit_code", .int(Int(exitCode))), ("error", error.json)])
        lock.withLock { _ = sink.write(event.serialized(pretty: false) + "\n") }
    }

    /// The handler to give a job or batch; nil when nothing is shown.
    var handler: ProgressHandler? {
        guard mode != .none else { return nil }
        return { [self] event in receive(event) }
    }

    func receive(_ event: ProgressEvent) {
        lock.withLock {
            switch mode {
            case .none:
                return
            case .json:
                sink.write(event.json.serialized(pretty: false) + "\n")
            case .line:
                if event.stage == "files" { files = event } else { track(event) }
                let now = ContinuousClock.now
                let final = event.done == event.total
                if !final, let lastDraw, now - lastDraw < .milliseconds(100) { return }
                lastDraw = now
                draw()
            }
        }
    }

    /// Removes the progress line so other text can be printed (it is redrawn on the next event).
    func clear() {
        lock.withLock {
            guard lineShown else { return }
            sink.write("\r\u{1B}[K")
            lineShown = false
        }
    }

    private func track(_ event: ProgressEvent) {
        if stageStart?.stage != event.stage || stageStart?.input != event.input || event.done == 0 {
            stageStart = (event.stage, event.input, event.milliseconds, event.done)
        }
        latest = event
    }

    private func draw() {
        var parts: [String] = []
        if let files {
            var text = "\(files.done)/\(files.total) files, \(Self.seconds(files.milliseconds))"
            if files.done > 0 && files.done < files.total {
                let eta = files.milliseconds / Double(files.done) * Double(files.total - files.done)
                text += ", ETA \(Self.seconds(eta))"
            }
            parts.append(text)
        }
        if let latest, latest.done < latest.total || files == nil {
            var text = (files != nil ? (latest.input.map { ($0 as NSString).lastPathComponent + ": " } ?? "") : "")
            text += "\(latest.stage) \(latest.done)/\(latest.total)"
            if files == nil {
                text += ", \(Self.seconds(latest.milliseconds))"
                if let start = stageStart, latest.done > start.done, latest.done < latest.total {
                    let perStep = (latest.milliseconds - start.ms) / Double(latest.done - start.done)
                    text += ", ETA \(Self.seconds(perStep * Double(latest.total - latest.done)))"
                }
            }
            parts.append(text)
        }
        sink.write("\r\u{1B}[K" + parts.joined(separator: " · "))
        lineShown = true
    }

    static func seconds(_ ms: Double) -> String {
        ms < 10_000 ? "\((ms / 100).rounded() / 10) s" : "\(Int((ms / 1000).rounded())) s"
    }
}
