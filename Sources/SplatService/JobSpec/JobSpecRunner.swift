import SplatCore

/// Runs fleet jobs (`JobSpec`): fetches the input, reads its header, waits for memory under the
/// admission controller, decodes once, renders every output with the ordinary `SceneJob`
/// machinery, then stores each output at its location (an atomic file write or an HTTP PUT).
/// Outputs are stored only once all of them rendered, and the outcome says whether a failure
/// is worth another attempt. One runner serves every job of a worker or a job file; it holds no
/// state of its own beyond the shared admission controller.
public struct JobSpecRunner: Sendable {
    /// Where `file://` locations must stay; used again when storing, after folders are made.
    public var roots: JobLocationRoots
    /// Downloads and uploads (timeouts, redirects, proxies).
    public var transfer: URLTransfer
    /// Decides when a job may start from its estimated peak; nil runs every job at once.
    public var admission: AdmissionController?
    /// The report's `command`: `worker`, or `thumbnails` for a job file.
    public var command: String

    public init(roots: JobLocationRoots = .unconfined, transfer: URLTransfer = URLTransfer(),
                admission: AdmissionController? = nil, command: String = CommandName.worker.rawValue) {
        self.roots = roots
        self.transfer = transfer
        self.admission = admission
        self.command = command
    }

    /// Parses `text` against `roots` and runs it; a job that does not parse ends with a `bad_job`
    /// report at once.
    public func run(text: String, index: Int? = nil, cancellation: CancellationToken? = nil,
                    progress: ProgressHandler? = nil) -> JobSpecOutcome {
        do throws(SplatError) {
            return run(try JobSpecParser.parse(text, roots: roots), index: index, cancellation: cancellation, progress: progress)
        } catch {
            return refused(error, text: text, index: index)
        }
    }

    /// Runs one parsed job. Never throws: a failure is in the outcome's report.
    /// - Parameters:
    ///   - cancellation: a wider scope (the worker's hold on the job); the job's own `timeout`
    ///     runs under it.
    public func run(_ spec: JobSpec, index: Int? = nil, cancellation: CancellationToken? = nil,
                    progress: ProgressHandler? = nil) -> JobSpecOutcome {
        JobSpecExecution(spec: spec, runner: self, index: index, cancellation: cancellation, progress: progress).execute()
    }

    /// The outcome of a job refused before it ran (it did not parse): `error` in its report.
    public func refused(_ error: SplatError, text: String, index: Int? = nil) -> JobSpecOutcome {
        var report = RunReport(command: command, input: "", index: index)
        report.jobID = JobSpecParser.id(in: text)
        report.failed(error, at: .input)
        report.finish()
        return JobSpecOutcome(report: report, isTransient: false)
    }
}

/// How a fleet job ended.
public struct JobSpecOutcome: Sendable {
    /// The job's report: one batch report line (`jsonLine`), outputs at their locations.
    public var report: RunReport
    /// Whether another attempt may succeed: the input could not be fetched or an output not
    /// stored (network or storage I/O, 5xx, a timed-out transfer), or the run was stopped from
    /// outside (the worker stopping, the job claimed elsewhere). A bad job, an invalid scene or
    /// one over a ceiling fails the same way every time.
    public var isTransient: Bool

    /// The job's `id`, when it had one.
    public var id: String? { report.jobID }
    /// The failure, nil on success.
    public var error: SplatError? { report.error }
}
