import Foundation
import SplatCore
import SplatService

/// `splatrender thumbnails IN... --out-dir DIR`: the batch service. Inputs are expanded by
/// `BatchInput.expand` (files, SOG folders, scanned folders, and `--from-stdin` paths) and run by
/// `BatchRunner`; each gets one report line (see `RunReport`). Exit status 0 when every input
/// succeeded, 2 (`someInputsFailed`) when any failed; 64 and 73 are about the batch itself.
enum ThumbnailsCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        if let jobFile = parsed.text(.jobFile) { return runJobFile(jobFile, context) }
        let shard: ShardSelector?
        do throws(SplatError) { shard = try parsed.text(.shard).map(ShardSelector.init(parsing:)) } catch {
            return context.usage(error.message)
        }
        guard let outputDirectory = parsed.text(.outDir) else {
            return context.usage("thumbnails needs --out-dir DIR")
        }
        var arguments = parsed.positionals
        if arguments.contains("-") {
            return context.usage("thumbnails takes paths; use --from-stdin for a list of paths on standard input, or render - for one scene")
        }
        if parsed.flag(.fromStdin) {
            do throws(SplatError) { arguments += try context.standardInputLines() } catch { return context.failInput(error) }
        } else if arguments.isEmpty {
            return context.usage("thumbnails needs at least one input (IN... or --from-stdin)")
        }

        do {
            try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true)
        } catch {
            return context.fail(SplatError(.io, "cannot create the output folder: \(error.localizedDescription)",
                                           file: outputDirectory), .cannotCreate)
        }
        let reportPath = parsed.text(.report)
        let reserved = reportPath.flatMap { Self.relativePath($0, inside: outputDirectory) }.map { [$0, $0 + ".partial"] } ?? []
        var inputs = BatchInput.expand(arguments, reserved: reserved)
        if let shard { inputs = inputs.filter { shard.includes($0.relativePath) } }
        var options = BatchOptions(outputDirectory: outputDirectory, jobs: parsed.integer(.jobs) ?? BatchOptions.defaultJobs,
                                   memoryBudget: parsed.memoryBudget,
                                   load: parsed.loadOptions, view: parsed.viewRequest, orbit: parsed.orbitOptions, writeImage: true,
                                   writeFrames: parsed.isGiven(.turntable),
                                   sheet: parsed.flag(.sheet) ? parsed.sheetPlan : nil,
                                   animation: parsed.flag(.animation) ? parsed.animationOptions : nil,
                                   timeoutSeconds: parsed.timeoutSeconds)
        options.load.upEstimate = context.upEstimateUse
        options.skipExisting = parsed.flag(.skipExisting)
        options.minCoverage = parsed.minCoverage
        options.encoding = parsed.imageEncoding
        do throws(SplatError) { try options.encoding.validate(for: "x." + (options.encoding.format ?? .png).fileExtension) } catch {
            return context.usage(error.message)
        }
        options.reservedPaths = reserved
        return reportingBatch(context) { log, console in
            if inputs.isEmpty {
                console.warn(shard.map { "no scenes of shard \($0) in \(arguments.joined(separator: ", "))" }
                             ?? "no scenes found in \(arguments.joined(separator: ", "))")
            }
            return BatchRunner(options: options).run(inputs, log: log, progress: console.progress.handler,
                                                     cancellation: context.cancellation, completion: console.finished)
        }
    }

    /// Opens `--report`, runs the batch with it and the console, and turns the summary into the
    /// exit status: 0 when every input succeeded, 2 when some failed, 73/74 when the report
    /// could not be written.
    static func reportingBatch(_ context: CommandContext, _ body: (JSONLinesLog?, BatchConsole) -> BatchSummary) -> Int32 {
        let reportPath = context.parsed.text(.report)
        var log: JSONLinesLog?
        if let reportPath, reportPath != "-" {
            do throws(SplatError) {
                log = try JSONLinesLog(path: reportPath)
            } catch {
                return context.fail(error, .cannotCreate)
            }
        }
        let console = BatchConsole(context, linesToStdout: context.parsed.flag(.json) || reportPath == "-")
        let summary = body(log, console)
        console.progress.clear()
        if let logError = summary.logError {
            // The report under its final name only ever holds complete reports: it stays .partial.
            return context.fail(logError, .cannotCreate)
        }
        if reportPath == "-", let failure = context.stdout.writeFailure {
            context.stderr.write("error: cannot write the report to standard output: \(failure)\n")
            return ExitCode.outputIOError.rawValue
        }
        console.summarise(summary)
        return (summary.failed == 0 ? ExitCode.ok : .someInputsFailed).rawValue
    }

    /// `path` relative to `folder` when it lies inside it (a report written into the output
    /// folder reserves its name there), nil otherwise.
    static func relativePath(_ path: String, inside folder: String) -> String? {
        let file = OutputPreflight.resolved(path), root = OutputPreflight.resolved(folder)
        guard file.hasPrefix(root + "/") else { return nil }
        return String(file.dropFirst(root.count + 1))
    }
}

/// The batch's console output, shared by the worker threads: one line per finished input
/// (its JSON line with `--json` or `--report -`, else a short text line; failures always on
/// stderr) and the progress line, never interleaved.
final class BatchConsole: @unchecked Sendable {
    let stdout: LockedOutput
    let stderr: LockedOutput
    let progress: ProgressPrinter
    let linesToStdout: Bool
    let quiet: Bool
    let verbose: Bool

    init(_ context: CommandContext, linesToStdout: Bool) {
        stdout = LockedOutput(context.stdout)
        stderr = LockedOutput(context.stderr)
        let wanted = ProgressPrinter(context)
        progress = ProgressPrinter(mode: wanted.mode, sink: stderr)
        self.linesToStdout = linesToStdout
        quiet = context.quiet
        verbose = context.verbose
    }

    func warn(_ text: String) {
        guard !quiet else { return }
        stderr.write("warning: \(text)\n")
    }

    /// Sets the input's exit status and prints its line.
    func finished(_ report: inout RunReport) {
        let status = report.error.map { ExitCode.forFailure($0, at: report.failedStage ?? .input) } ?? .ok
        report.exitCode = status.rawValue
        progress.clear()
        if linesToStdout {
            stdout.write(report.jsonLine + "\n")
        }
        if let error = report.error {
            if progress.mode == .json {
                // A supervisor reading NDJSON events gets the failure as one more event.
                progress.failed(error, input: report.input, exitCode: status.rawValue)
            } else {
                stderr.write("error: \(error.description)\n")
            }
        } else if report.skipped {
            if !quiet && !linesToStdout { stdout.write("skipped \(SplatError.printable(report.input)): its outputs exist\n") }
        } else if !quiet && !linesToStdout {
            // Names come from the file system: a newline in one must not split the line.
            let outputs = report.outputs.map { SplatError.printable($0.path) }.joined(separator: ", ")
            var line = "ok \(SplatError.printable(report.input)) → \(outputs) (\(StageTimings.format(report.totalMilliseconds ?? 0)) ms)"
            if verbose { line += "\n   timings: \(report.timings.summary)" }
            stdout.write(line + "\n")
        }
    }

    /// The closing line: on stdout, or on stderr when stdout carries the report lines.
    func summarise(_ summary: BatchSummary) {
        guard !quiet else { return }
        // Skipped inputs succeeded without running; inputs a signal kept from starting have no line.
        let skipped = summary.statusCounts["skipped", default: 0]
        let notStarted = summary.total - summary.statusCounts.values.reduce(0, +)
        var text = "\(summary.total) input\(summary.total == 1 ? "" : "s"): \(summary.succeeded - skipped) ok"
        if skipped > 0 { text += ", \(skipped) skipped" }
        let failures = summary.statusCounts.filter { $0.key != "ok" && $0.key != "skipped" }.sorted { $0.key < $1.key }
        if !failures.isEmpty {
            text += ", \(summary.failed - notStarted) failed (" + failures.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + ")"
        }
        if notStarted > 0 { text += ", \(notStarted) not started" }
        if summary.interrupted { text += "; interrupted by a signal" }
        (linesToStdout ? stderr : stdout).write(text + "\n")
    }
}
