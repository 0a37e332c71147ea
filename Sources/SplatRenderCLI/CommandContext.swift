import SplatCore
import SplatFormats

/// What one command run works with: the parsed command line and the three streams.
/// Results go to stdout, diagnostics and errors to stderr; `--quiet` silences all but errors.
final class CommandContext {
    let parsed: ParsedCommand
    let stdin: InputSource
    let stdout: OutputSink
    let stderr: OutputSink
    /// Where result text goes: stdout, unless stdout carries binary output (`--out -`).
    var textSink: OutputSink

    init(parsed: ParsedCommand, stdin: InputSource, stdout: OutputSink, stderr: OutputSink) {
        self.parsed = parsed
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        textSink = stdout
    }

    var quiet: Bool { parsed.flag("quiet") }
    var verbose: Bool { parsed.flag("verbose") && !quiet }

    /// A result line on the text sink (unless --quiet).
    func say(_ text: String) {
        guard !quiet else { return }
        textSink.write(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// A warning on stderr (unless --quiet).
    func warn(_ text: String) {
        guard !quiet else { return }
        stderr.write("warning: \(text)\n")
    }

    /// Prints `error: <kind>: <message> (<file>, field, offset)` and returns `code`.
    func fail(_ error: SplatError, _ code: ExitCode) -> Int32 {
        stderr.write("error: \(error.description)\n")
        return code.rawValue
    }

    /// Ends a `render` or `convert` run: prints the error (if any), writes `--report FILE.json`,
    /// prints the report for `--json` (alone or with `--verbose`) to `reportSink` (stdout unless
    /// that carries an image), and returns the exit status.
    func finish(_ report: RunReport, _ status: ExitCode, reportSink: OutputSink? = nil) -> Int32 {
        var status = status
        report.exitCode = status
        if let error = report.error {
            stderr.write("error: \(error.description)\n")
        }
        if let path = parsed.text("report"), let failure = report.write(to: path) {
            stderr.write("error: cannot write the report: \(failure.description)\n")
            if status == .ok { status = .cannotCreate }
        }
        if !quiet && parsed.flag("json") {
            (reportSink ?? stdout).write(report.json.serialized() + "\n")
        }
        return status.rawValue
    }

    /// An error while reading or decoding the input.
    func failInput(_ error: SplatError) -> Int32 {
        fail(error, ExitCode.forInputError(error.kind))
    }
}

/// The options every decoding command shares, read once from the command line.
struct DecodeOptions {
    var path: String
    var format: SplatFormat?
    var limits: DecodeLimits
    var sourceFrame: CoordinateSystem?
    var flip: Bool
    var threads: Int?

    init(_ parsed: ParsedCommand, path: String) {
        self.path = path
        format = parsed.format("format")
        limits = DecodeLimits(maxDecodedBytes: parsed.integer("max-decoded-bytes") ?? DecodeLimits.serviceCeilingBytes,
                              maxShDegree: parsed.integer("max-sh-degree"),
                              strict: parsed.flag("strict"))
        sourceFrame = parsed.frame("source-frame")
        flip = parsed.flag("flip")
        threads = parsed.integer("threads")
    }
}
