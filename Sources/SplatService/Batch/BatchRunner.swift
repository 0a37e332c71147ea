import Foundation
import SplatCore
import SplatFormats
import SplatImage

/// Runs a batch of inputs as `SceneJob`s, several at once, with memory bounded by estimates.
///
/// For each input in order the runner reads the header (cheap: no body is decoded) and decides:
/// a header that fails, or a job whose declared size or estimated peak is over its limits, ends
/// the input at once with its report (`too_large` without decoding). Otherwise the input waits
/// until fewer than `jobs` inputs are running and the estimated peaks of the running ones plus
/// its own fit `memoryBudget`, then runs on its own thread. Inputs start in input order; one
/// failing input never stops the others. With `skipExisting`, an input whose outputs all exist
/// gets a `skipped` line and is not run.
///
/// A cancelled `cancellation` token (a signal) stops the batch: no new input starts, the ones in
/// flight stop at their next check and report `interrupted` with their outputs rolled back, and
/// the log is committed. Temporary files that an earlier run killed without warning left in
/// the output folder are removed first.
///
/// Reports are handed to `completion` and appended to the log in the order inputs finish (each
/// carries its `index`), one at a time; the log is committed (renamed into place) at the end.
public struct BatchRunner: Sendable {
    public var options: BatchOptions

    public init(options: BatchOptions) {
        self.options = options
    }

    /// Runs every input and returns when all have finished. Creates the output folder if needed.
    ///
    /// - Parameters:
    ///   - log: where the report lines go (committed before returning; nil for none).
    ///   - progress: job events (decode, render, encode) and `files` events (done/total).
    ///   - completion: sees each report before its line is written (the CLI adds its exit code
    ///     and prints a summary line); called on worker threads, never concurrently.
    ///   - cancellation: the batch's scope (signals); every job runs under it.
    public func run(_ inputs: [BatchInput], log: JSONLinesLog? = nil, progress: ProgressHandler? = nil,
                    cancellation: CancellationToken? = nil,
                    completion: (@Sendable (inout RunReport) -> Void)? = nil) -> BatchSummary {
        let started = Date()
        // A folder that cannot be made shows up as each input's write error.
        try? FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        StaleTemporaries.remove(under: options.outputDirectory, olderThan: started)
        let state = BatchState(total: inputs.count, log: log, progress: progress, completion: completion)
        let limits = options.load.limits
        let jobs = max(1, options.jobs)
        state.emitFiles()
        var interrupted = false

        for (index, input) in inputs.enumerated() {
            if let cancellation, cancellation.isCancelled {
                interrupted = true
                break
            }
            var report = RunReport(command: "thumbnails", input: input.path, index: index)
            if let problem = input.problem {
                report.failed(problem, at: .input)
                state.complete(report)
                continue
            }
            var job = options.job(for: input, index: index)
            job.cancellation = cancellation
            // Outputs mirror the input tree: make the input's folder under the output folder.
            let folder = ((options.outputDirectory as NSString).appendingPathComponent(input.stem) as NSString).deletingLastPathComponent
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if options.skipExisting, BatchOptions.outputPaths(of: job).allSatisfy({ FileIO.status(atPath: $0)?.kind == .regular }) {
                report.skipped = true
                state.complete(report)
                continue
            }
            let header: SceneHeader
            do throws(SplatError) {
                header = try report.time(.readHeader) { () throws(SplatError) in
                    try SceneLoader.readHeader(.path(input.path), format: options.load.format, limits: limits)
                }
            } catch {
                report.failed(error, at: .input)
                state.complete(report)
                continue
            }
            job.header = header
            job.headerMilliseconds = report.timings[.readHeader] ?? 0
            let verdict = SceneAdmission.verdict(for: job, header: header, inputBytes: SceneAdmission.inputBytes(of: job.input, header: header),
                                                 memoryBudget: options.memoryBudget)
            if verdict.refusal(file: input.path) != nil {
                // The job reports the refusal itself from the header it is handed, without decoding.
                state.complete(job.run(progress: progress).report)
                continue
            }
            let estimate = verdict.estimate?.totalBytes ?? 0
            guard state.acquire(bytes: estimate, jobs: jobs, budget: options.memoryBudget, cancellation: cancellation) else {
                interrupted = true
                break
            }
            let ready = job
            Thread.detachNewThread {
                let outcome = ready.run(progress: progress)
                state.complete(outcome.report)
                state.release(bytes: estimate)
            }
        }
        return state.finish(log: log, interrupted: interrupted || (cancellation?.isCancelled ?? false))
    }
}
