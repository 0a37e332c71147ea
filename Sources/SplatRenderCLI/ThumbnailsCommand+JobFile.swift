import SplatCore
import SplatService

extension ThumbnailsCommand {
    /// Most bytes of a job file (`-`: standard input) that are read.
    static let maxJobFileBytes = 64 << 20

    /// `thumbnails --job-file FILE.jsonl`: every non-blank line is one job of the worker's job
    /// schema, run by `JobSpecRunner` — `--jobs` at a time under `--memory-budget` — with its
    /// report line (its line's index among the jobs, its `id`) in `--report` as it finishes.
    /// Inputs and outputs are the jobs' own, so IN..., `--out-dir` and `--shard` do not apply.
    static func runJobFile(_ path: String, _ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        guard parsed.positionals.isEmpty, !parsed.flag(.fromStdin) else {
            return context.usage("--job-file names the inputs of its jobs; give no IN... or --from-stdin with it")
        }
        // Everything about a job's input and outputs is in the job; the batch only runs them.
        let batchOptions: Set<OptionName> = [.jobFile, .jobs, .report, .json, .memoryBudget, .inputRoot, .outputRoot,
                                             .progress, .quiet, .verbose]
        if let option = parsed.given.keys.filter({ !batchOptions.contains($0) }).map(\.rawValue).sorted().first {
            return context.usage("--\(option) does not apply to --job-file: set it in the jobs (their options or outputs)")
        }
        let text: String
        do throws(SplatError) {
            if path == "-" {
                text = try context.stdin.readText(maxBytes: maxJobFileBytes)
            } else {
                let file = try FileIO.readRegularFile(path, maxBytes: maxJobFileBytes)
                text = withExtendedLifetime(file) { String(decoding: file.bytes, as: UTF8.self) }
            }
        } catch {
            return context.failInput(error)
        }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.allSatisfy(\.isWhitespace) }
        let jobs = parsed.integer(.jobs) ?? BatchOptions.defaultJobs
        let runner: JobSpecRunner
        do throws(SplatError) {
            runner = JobSpecRunner(roots: try JobLocationRoots(inputRoot: parsed.text(.inputRoot), outputRoot: parsed.text(.outputRoot)),
                                   admission: AdmissionController(workers: jobs, queueLimit: jobs, memoryBudgetBytes: parsed.memoryBudget),
                                   command: CommandName.thumbnails.rawValue)
        } catch {
            return context.usage(error.message)
        }
        return reportingBatch(context) { log, console in
            if lines.isEmpty { console.warn("no jobs in \(path)") }
            return runner.run(lines: lines, jobs: jobs, log: log, progress: console.progress.handler,
                              cancellation: context.cancellation, completion: console.finished)
        }
    }
}
