import Foundation
import SplatCore

extension JobSpecRunner {
    /// Runs the jobs of a job file (`thumbnails --job-file`): one job per entry of `lines`, at
    /// most `jobs` at a time (and, with an admission controller, only while their estimated
    /// peaks fit its budget). Each job's report — a `bad_job` one for a line that does not
    /// parse — carries its line's index and goes to `completion`, then to `log`, as jobs finish.
    /// A cancelled `cancellation` starts no further job; running ones stop at their next check.
    public func run(lines: [String], jobs: Int, log: JSONLinesLog? = nil, progress: ProgressHandler? = nil,
                    cancellation: CancellationToken? = nil,
                    completion: (@Sendable (inout RunReport) -> Void)? = nil) -> BatchSummary {
        let state = BatchState(total: lines.count, log: log, progress: progress, completion: completion)
        state.emitFiles()
        var interrupted = false
        for (index, line) in lines.enumerated() {
            // Memory is the admission controller's to bound; the state only counts jobs.
            guard cancellation?.isCancelled != true,
                  state.acquire(bytes: 0, jobs: max(1, jobs), budget: Int.max, cancellation: cancellation) else {
                interrupted = true
                break
            }
            Thread.detachNewThread { [self] in
                state.complete(run(text: line, index: index, cancellation: cancellation, progress: progress).report)
                state.release(bytes: 0)
            }
        }
        return state.finish(log: log, interrupted: interrupted || (cancellation?.isCancelled ?? false))
    }
}
