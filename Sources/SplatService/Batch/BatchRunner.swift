import Foundation
import SplatCore
import SplatFormats
import SplatImage

/// What a batch makes of each input, and how many inputs may run at once.
public struct BatchOptions: Sendable {
    /// Inputs in flight unless told otherwise: one, so a batch never needs more memory than
    /// its largest input unless asked.
    public static let defaultJobs = 1

    /// Outputs go here: `<stem>.png`, `<stem>/frame_NNN.png`, `<stem>.sheet.png`, `<stem>.webp`.
    public var outputDirectory: String
    /// Most inputs in flight at once.
    public var jobs: Int
    /// Ceiling on the sum of the declared decoded sizes of the inputs in flight (from their
    /// headers, before decoding). Defaults to the per-file limit `load.limits.maxDecodedBytes`.
    /// Only decoded scene floats count; each decoder also caps its own intermediates at the
    /// per-file limit.
    public var memoryBudget: Int
    public var load: LoadOptions
    public var view: ViewRequest
    public var orbit: OrbitOptions
    /// Write `<stem>.png`, the automatic view (default true).
    public var writeImage: Bool
    /// Write the orbit's frames to `<stem>/` (the frame count is `orbit.frames`).
    public var writeFrames: Bool
    /// Write `<stem>.sheet.png`.
    public var sheet: SheetPlan?
    /// Write `<stem>.webp`, an animation of the orbit's frames.
    public var animation: AnimatedWebPWriter.Options?
    public var timeoutSeconds: Double?

    public init(outputDirectory: String, jobs: Int = BatchOptions.defaultJobs, memoryBudget: Int? = nil, load: LoadOptions = LoadOptions(),
                view: ViewRequest = ViewRequest(), orbit: OrbitOptions = OrbitOptions(), writeImage: Bool = true,
                writeFrames: Bool = false, sheet: SheetPlan? = nil, animation: AnimatedWebPWriter.Options? = nil,
                timeoutSeconds: Double? = nil) {
        self.outputDirectory = outputDirectory
        self.jobs = jobs
        self.memoryBudget = memoryBudget ?? load.limits.maxDecodedBytes
        self.load = load
        self.view = view
        self.orbit = orbit
        self.writeImage = writeImage
        self.writeFrames = writeFrames
        self.sheet = sheet
        self.animation = animation
        self.timeoutSeconds = timeoutSeconds
    }

    /// The job for one input (outputs named after its stem).
    public func job(for input: BatchInput, index: Int) -> SceneJob {
        let base = (outputDirectory as NSString).appendingPathComponent(input.stem)
        var job = SceneJob(command: "thumbnails", input: .path(input.path), load: load, view: view, orbit: orbit,
                           image: writeImage ? .file(base + ".png") : nil,
                           framesDirectory: writeFrames ? base : nil,
                           sheet: sheet.map { SheetOutput(path: base + ".sheet.png", plan: $0) },
                           animation: animation.map { AnimationOutput(path: base + ".webp", options: $0) },
                           timeoutSeconds: timeoutSeconds)
        job.index = index
        return job
    }
}

/// How a batch went.
public struct BatchSummary: Sendable, Equatable {
    public var total = 0
    public var succeeded = 0
    /// Inputs per status ("ok", "too_large", "truncated", …).
    public var statusCounts: [String: Int] = [:]
    /// The first failure to append to the report log, if any (the batch still ran to the end).
    public var logError: SplatError?
    /// Most inputs that were decoding or rendering at the same time.
    public var peakRunning = 0
    /// Largest sum of declared decoded sizes in flight at once (never above the budget unless
    /// a single input alone was larger, which the per-file limit refuses first).
    public var peakRunningBytes = 0

    public var failed: Int { total - succeeded }
}

/// Runs a batch of inputs as `SceneJob`s, several at once, with memory bounded by headers.
///
/// For each input in order the runner reads the header (cheap: no body is decoded) and decides:
/// a header that fails, or a declared decoded size over the per-file limit, ends the input at
/// once with its report (`too_large` without decoding). Otherwise the input waits until fewer
/// than `jobs` inputs are running and the declared sizes of the running ones plus its own fit
/// `memoryBudget` (an input always starts when nothing else runs), then runs on its own thread.
/// Inputs start in input order; one failing input never stops the others.
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
    public func run(_ inputs: [BatchInput], log: JSONLinesLog? = nil, progress: ProgressHandler? = nil,
                    completion: (@Sendable (inout RunReport) -> Void)? = nil) -> BatchSummary {
        // A folder that cannot be made shows up as each input's write error.
        try? FileManager.default.createDirectory(atPath: options.outputDirectory, withIntermediateDirectories: true)
        let state = BatchState(total: inputs.count, log: log, progress: progress, completion: completion)
        let limits = options.load.limits
        let jobs = max(1, options.jobs)
        state.emitFiles()

        for (index, input) in inputs.enumerated() {
            var report = RunReport(command: "thumbnails", input: input.path, index: index)
            if let problem = input.problem {
                report.failed(problem, at: .input)
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
            var job = options.job(for: input, index: index)
            job.header = header
            job.headerMilliseconds = report.timings[.readHeader] ?? 0
            let verdict = SceneAdmission.verdict(for: header, limits: limits)
            if verdict.refusal(file: input.path) != nil {
                // The job reports the refusal itself from the header it is handed, without decoding.
                state.complete(job.run(progress: progress).report)
                continue
            }
            let declared = verdict.declaredDecodedBytes ?? limits.maxDecodedBytes
            state.acquire(bytes: declared, jobs: jobs, budget: options.memoryBudget)
            let ready = job
            Thread.detachNewThread {
                let outcome = ready.run(progress: progress)
                state.complete(outcome.report)
                state.release(bytes: declared)
            }
        }
        state.waitForAll()
        if let log {
            do throws(SplatError) {
                try log.commit()
            } catch {
                state.noteLogError(error)
            }
        }
        return state.result()
    }
}

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

    func acquire(bytes: Int, jobs: Int, budget: Int) {
        condition.lock()
        while running >= jobs || (running > 0 && runningBytes > budget - bytes) {
            condition.wait()
        }
        running += 1
        runningBytes += bytes
        peakRunning = max(peakRunning, running)
        peakRunningBytes = max(peakRunningBytes, runningBytes)
        condition.unlock()
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
