import SplatCore
import SplatFormats
import SplatService

/// What one command run works with: the parsed command line and the three streams.
/// Results go to stdout, diagnostics and errors to stderr; `--quiet` silences all but errors.
final class CommandContext {
    let parsed: ParsedCommand
    let stdin: InputSource
    let stdout: OutputSink
    let stderr: OutputSink
    /// Where result text goes: stdout, unless stdout carries binary output (`--out -`).
    var textSink: OutputSink
    private var stdinBytes: [UInt8]?

    init(parsed: ParsedCommand, stdin: InputSource, stdout: OutputSink, stderr: OutputSink) {
        self.parsed = parsed
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        textSink = stdout
    }

    var quiet: Bool { parsed.flag(.quiet) }
    var verbose: Bool { parsed.flag(.verbose) && !quiet }

    /// Standard input, read once and kept (a command may read the header and then decode).
    func standardInputBytes() -> [UInt8] {
        if let stdinBytes { return stdinBytes }
        let bytes = stdin.readAll()
        stdinBytes = bytes
        return bytes
    }

    /// `-` is standard input (read to its end, named `-`); anything else a path.
    func sceneInput(_ path: String) -> SceneInput {
        path == "-" ? .bytes(standardInputBytes(), name: "-") : .path(path)
    }

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

    /// A usage problem found after parsing: `error: <message> (see --help)`, status 64.
    func usage(_ message: String) -> Int32 {
        stderr.write("error: \(message) (see --help)\n")
        return ExitCode.usage.rawValue
    }

    /// Ends a single-input run: sets the exit status from the failure (if any), prints the error,
    /// writes `--report FILE.json`, prints the report for `--json` to `reportSink` (stdout unless
    /// that carries an image), and returns the exit status.
    func finish(_ report: inout RunReport, reportSink: OutputSink? = nil) -> Int32 {
        if report.totalMilliseconds == nil { report.finish() }
        var status = report.error.map { ExitCode.forFailure($0, at: report.failedStage ?? .input) } ?? .ok
        report.exitCode = status.rawValue
        if let error = report.error {
            stderr.write("error: \(error.description)\n")
        }
        if let path = parsed.text(.report) {
            do throws(SplatError) {
                try report.write(to: path)
            } catch {
                stderr.write("error: cannot write the report: \(error.description)\n")
                if status == .ok { status = .cannotCreate }
            }
        }
        if !quiet && parsed.flag(.json) {
            (reportSink ?? stdout).write(report.json.serialized() + "\n")
        }
        return status.rawValue
    }

    /// An error while reading or decoding the input.
    func failInput(_ error: SplatError) -> Int32 {
        fail(error, ExitCode.forInputError(error.kind))
    }
}
