import SplatCore
#if canImport(Glibc)
import Glibc
#endif
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
    /// Stops every job of this run: cancelled by SIGINT/SIGTERM (`SignalCancellation`).
    let cancellation: CancellationToken
    private var stdinScene: InputBytes?

    init(parsed: ParsedCommand, stdin: InputSource, stdout: OutputSink, stderr: OutputSink,
         cancellation: CancellationToken = CancellationToken()) {
        self.parsed = parsed
        self.cancellation = cancellation
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        // `--report -` makes standard output the report's: the lines for people go to stderr.
        textSink = parsed.text(.report) == "-" ? stderr : stdout
    }

    var quiet: Bool { parsed.flag(.quiet) }
    var verbose: Bool { parsed.flag(.verbose) && !quiet }

    /// `-` is standard input (read once into its final buffer, refused from its first bytes when
    /// not a splat file, capped by `--max-input-bytes`, named `-`); anything else a path.
    func sceneInput(_ path: String) throws(SplatError) -> SceneInput {
        guard path == "-" else { return .path(path) }
        if let stdinScene { return .memory(stdinScene) }
        let load = parsed.loadOptions
        let bytes = try stdin.readScene(format: load.format, limits: load.limits)
        stdinScene = bytes
        return .memory(bytes)
    }

    /// A one-scene command's input and load options, or the exit status once the failure is
    /// reported (the input cannot be read, or the report would overwrite it).
    enum SceneOpening {
        case opened(SceneInput, LoadOptions)
        case failed(Int32)

        var status: Int32 { if case .failed(let status) = self { status } else { 0 } }
    }

    /// Without `--report` or `--json` nothing prints the up estimate, so it is made only when it
    /// decides the frame (`--verbose` prints the decision, which says so then).
    var upEstimateUse: LoadOptions.UpEstimateUse {
        parsed.text(.report) == nil && !parsed.flag(.json) ? .whenItDecides : .always
    }

    func openScene(_ path: String) -> SceneOpening {
        let input: SceneInput
        var load: LoadOptions
        do throws(SplatError) {
            load = try loadOptions()
            load.upEstimate = upEstimateUse
            input = try sceneInput(path)
        } catch {
            return .failed(failInput(error))
        }
        if let refused = checkReportPath(input: input) { return .failed(refused) }
        return .opened(input, load)
    }

    /// Runs a scene job as the command line does: its memory budget and coverage floor, the
    /// image encoding, and the progress display (cleared when the job ends).
    func run(_ job: SceneJob, encoding: ImageEncoding) -> JobOutcome {
        var job = job
        job.memoryBudget = parsed.memoryBudget
        job.minCoverage = parsed.minCoverage
        job.encoding = encoding
        let progress = ProgressPrinter(self)
        let outcome = job.run(progress: progress.handler)
        progress.clear()
        return outcome
    }

    /// The load options of the command line, with `--cameras` read.
    func loadOptions() throws(SplatError) -> LoadOptions {
        var load = parsed.loadOptions
        if let path = parsed.text(.cameras) { load.cameras = try TrainingCamerasReader.read(path: path) }
        return load
    }

    /// Most bytes of paths `--from-stdin` reads.
    static let maxPathListBytes = 64 << 20

    /// The lines of standard input (paths for `thumbnails --from-stdin`).
    func standardInputLines() throws(SplatError) -> [String] {
        let text = try stdin.readText(maxBytes: Self.maxPathListBytes)
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }.filter { !$0.isEmpty }
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
            if path == "-" {
                // `-` is standard output for every output option.
                (reportSink ?? stdout).write(report.json.serialized() + "\n")
            } else {
                do throws(SplatError) {
                    try report.write(to: path)
                } catch {
                    stderr.write("error: cannot write the report: \(error.description)\n")
                    if status == .ok { status = .cannotCreate }
                }
            }
        }
        if !quiet && parsed.flag(.json) {
            (reportSink ?? stdout).write(report.json.serialized() + "\n")
        }
        return status.rawValue
    }

    /// Checks `--report FILE` like the job's own outputs, before the job runs (not a device,
    /// FIFO or folder, its folder exists, not the input); the exit status when it fails.
    func checkReportPath(input: SceneInput) -> Int32? {
        guard let path = parsed.text(.report), path != "-" else { return nil }
        do throws(SplatError) {
            try OutputPreflight.check(files: [path], input: input)
        } catch {
            return fail(error, error.kind == .invalidArgument ? .usage : .cannotCreate)
        }
        return nil
    }

    /// Exit 130 or 143 when a signal stopped the run, else `status`.
    func signalled(_ status: Int32) -> Int32 {
        guard cancellation.reason == .interrupted else { return status }
        if SignalCancellation.lastSignal == 0 { return ExitCode.interrupted.rawValue }
        return SignalCancellation.lastSignal == SIGTERM ? ExitCode.terminated.rawValue : ExitCode.interrupted.rawValue
    }

    /// An error while reading or decoding the input.
    func failInput(_ error: SplatError) -> Int32 {
        fail(error, ExitCode.forInputError(error.kind))
    }
}
