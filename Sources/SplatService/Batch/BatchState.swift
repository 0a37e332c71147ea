import Foundation
import SplatCore

/// The runner's shared state: running count and bytes under a condition, and the completion
/// path (hook, log line, progress) under its own lock so lines never interleave.
final class BatchState: @unchecked Sendable {
    private let condition = NSCondition()
    private var running = 0
    private var runningBytes = 0
    private var peakRunning = 0
    private var peakRunningBytes = 0
    private let output = NSLock()
    private var summary = BatchSummary()
    private let started = ContinuousClock.now
    private let log: JSONLinesLog?
    private let progress: ProgressHandler?
    private let completion: (@Sendable (inout RunReport) -> Void)?

    init(total: Int, log: JSONLinesLog?, progress: ProgressHandler?, completion: (@Sendable (inout RunReport) -> Void)?) {
        summary.total = total
        self.log = log
        self.progress = progress
        self.completion = completion
    }

    /// Waits for a slot and room in the budget; false when `cancellation` stopped the wait.
    func acquire(bytes: Int, jobs: Int, budget: Int, cancellation: CancellationToken?) -> Bool {
        condition.lock()
        while running >= jobs || (running > 0 && runningBytes > budget - bytes) {
            if let cancellation, cancellation.isCancelled {
                condition.unlock()
                return false
            }
            // Woken by a finishing job, or after a short sleep to look at the token again.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        running += 1
        runningBytes += bytes
        peakRunning = max(peakRunning, running)
        peakRunningBytes = max(peakRunningBytes, runningBytes)
        condition.unlock()
        return true
    }

    func release(bytes: Int) {
        condition.lock()
        running -= 1
        runningBytes -= bytes
        condition.broadcast()
        condition.unlock()
    }

    func waitForAll() {
        condition.lock()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// Finishes one input: hook, log line, counters, progress.
    func complete(_ finished: RunReport) {
        var report = finished
        if report.totalMilliseconds == nil { report.finish() }
        output.lock()
        defer { output.unlock() }
        completion?(&report)
        if let log {
            do throws(SplatError) {
                try log.append(report.jsonLine)
            } catch {
                if summary.logError == nil { summary.logError = error }
            }
        }
        summary.statusCounts[report.status, default: 0] += 1
        if report.succeeded { summary.succeeded += 1 }
        emitFilesLocked()
    }

    /// Waits for every input, commits `log`, and sums up.
    func finish(log: JSONLinesLog?, interrupted: Bool) -> BatchSummary {
        waitForAll()
        if let log {
            do throws(SplatError) {
                try log.commit()
            } catch {
                noteLogError(error)
            }
        }
        var summary = result()
        summary.interrupted = interrupted
        return summary
    }

    func result() -> BatchSummary {
        var result = output.withLock { summary }
        condition.lock()
        result.peakRunning = peakRunning
        result.peakRunningBytes = peakRunningBytes
        condition.unlock()
        return result
    }

    func noteLogError(_ error: SplatError) {
        output.withLock {
            if summary.logError == nil { summary.logError = error }
        }
    }

    func emitFiles() {
        output.withLock { emitFilesLocked() }
    }

    private func emitFilesLocked() {
        let done = summary.statusCounts.values.reduce(0, +)
        progress?(ProgressEvent(stage: "files", done: done, total: summary.total,
                                milliseconds: StageTimings.milliseconds(ContinuousClock.now - started)))
    }
}
