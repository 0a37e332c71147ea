import SplatCore
import SplatFormats

/// One run of a `JobSpec`: the report being built and the job's token (its `timeout` under the
/// caller's scope). See `JobSpecRunner` for the order of the steps.
final class JobSpecExecution {
    let spec: JobSpec
    let runner: JobSpecRunner
    let progress: ProgressHandler?
    let token: CancellationToken
    var report: RunReport
    /// Set by the steps whose I/O failure another attempt may cure.
    var transient = false

    init(spec: JobSpec, runner: JobSpecRunner, index: Int?, cancellation: CancellationToken?, progress: ProgressHandler?) {
        self.spec = spec
        self.runner = runner
        self.progress = progress
        token = CancellationToken(seconds: spec.timeoutSeconds, parent: cancellation)
        report = RunReport(command: runner.command, input: spec.input.description, index: index)
        report.jobID = spec.id
    }

    func execute() -> JobSpecOutcome {
        do throws(JobFailure) {
            try token.bind { () throws(JobFailure) in try perform() }
        } catch {
            report.failed(error.error, at: error.stage)
        }
        report.finish()
        // A job stopped from outside did not fail: whoever runs it next may finish it.
        let stopped = [.interrupted, .cancelled].contains(report.error?.kind)
        return JobSpecOutcome(report: report, isTransient: report.error != nil && (transient || stopped))
    }

    private func perform() throws(JobFailure) {
        let renders = JobSpecRender.plan(spec)
        let input = try fetch()
        let name = input.name
        var load = spec.load
        let header = try step(.input) { () throws(SplatError) in
            try report.time(.readHeader) { () throws(SplatError) in
                try SceneLoader.readHeader(input, format: load.format, limits: load.limits)
            }
        }
        report.header = header
        report.note(header.warnings)
        load.format = header.format
        // Only renders follow: SH stays in the file's codes where it has them.
        load.shStorage = .quantized

        // The render holding the most decides: renders run one after another over one scene.
        var jobs = renders.map { $0.sceneJob(for: spec, command: runner.command, input: input, cancellation: token) }
        let inputBytes = SceneAdmission.inputBytes(of: input, header: header)
        let budget = runner.admission?.memoryBudgetBytes
        var verdict: AdmissionVerdict?
        for job in jobs {
            let candidate = SceneAdmission.verdict(for: job, header: header, inputBytes: inputBytes, memoryBudget: budget)
            if (candidate.estimate?.totalBytes ?? 0) >= (verdict?.estimate?.totalBytes ?? 0) { verdict = candidate }
        }
        report.verdict = verdict
        if let refusal = verdict?.refusal(file: name) {
            report.decision = FrameDecision.decide(header.frameFacts, options: load.frame)
            throw JobFailure(error: refusal, stage: .input)
        }
        let ticket = try admit(verdict?.estimate?.totalBytes ?? 0)
        defer { ticket?.release() }

        try step(.input) { () throws(SplatError) in try token.check("before decoding") }
        let loaded = try step(.input) { () throws(SplatError) in
            try SceneLoader.load(input, options: load, timings: &report.timings)
        }
        report.decodedCount = loaded.scene.count
        report.decision = loaded.decision
        report.note(loaded.header.warnings + loaded.scene.warnings)

        var held: [String: [UInt8]] = [:]
        var records: [String: OutputRecord] = [:]
        for index in jobs.indices {
            jobs[index].preloaded = loaded
            let outcome = jobs[index].run(progress: progress)
            absorb(outcome.report)
            if let error = outcome.report.error { throw JobFailure(error: error, stage: outcome.report.failedStage ?? .render) }
            for output in outcome.heldOutputs { held[output.path] = output.bytes }
            for record in outcome.report.outputs { records[record.path] = record }
        }
        // The decoded scene and the renderers are gone; only the encoded bytes remain.
        ticket?.release()
        try store(held, records: records)
    }

    /// The input as the decoders read it: a confined path, or the downloaded bytes (at most the
    /// input limit, and never more than the memory budget: such a job could not run anyway).
    private func fetch() throws(JobFailure) -> SceneInput {
        switch spec.input {
        case .file(let path):
            return .path(path)
        case .remote(let url):
            let limits = spec.load.limits
            let cap = min(limits.inputByteLimit, runner.admission?.memoryBudgetBytes ?? Int.max)
            let bytes = try step(.input, transientIO: true) { () throws(SplatError) in
                try report.time(.fetch) { () throws(SplatError) in try runner.transfer.get(url, maxBytes: cap, cancellation: token) }
            }
            return try step(.input) { () throws(SplatError) in
                // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
                let checked = bytes.withUnsafeBytes { raw in
                    Result { () throws(SplatError) -> InputBytes in
                        try InputBytes.checked(raw, name: spec.input.description, format: spec.load.format, limits: limits)
                    }
                }
                return .memory(try checked.get())
            }
        }
    }

    /// Waits for the job's estimated peak to fit the budget (nil without a controller).
    private func admit(_ bytes: Int) throws(JobFailure) -> AdmissionTicket? {
        guard let admission = runner.admission else { return nil }
        do throws(AdmissionRefusal) {
            return try admission.admit(estimatedBytes: bytes, cancellation: token)
        } catch {
            let cause: SplatError = switch error.reason {
            case .tooLarge: SplatError(.tooLarge, error.message, file: spec.input.description, field: "memory-budget")
            case .busy: SplatError(.io, error.message)
            case .expired, .cancelled: token.error(for: token.reason ?? .cancelled, at: "while waiting for memory")
            }
            transient = error.reason == .busy
            throw JobFailure(error: cause, stage: .input)
        }
    }

    /// Every output at its location, in the job's order, once all of them were made.
    private func store(_ held: [String: [UInt8]], records: [String: OutputRecord]) throws(JobFailure) {
        for (index, output) in spec.outputs.enumerated() {
            let name = JobSpecRender.name(of: index, in: spec)
            guard let bytes = held[name] else {
                throw JobFailure(error: SplatError(.io, "output \(index) was not made (internal)"), stage: .output)
            }
            let stage: JobStage = if case .remote = output.location { .upload } else { .write }
            try step(.output, transientIO: true) { () throws(SplatError) in
                try report.time(stage) { () throws(SplatError) in
                    try runner.roots.store(bytes, at: output.location, contentType: output.contentType,
                                           transfer: runner.transfer, cancellation: token)
                }
            }
            if var record = records[name] {
                record.path = output.location.description
                report.outputs.append(record)
            }
        }
    }

    /// Adds one render's report: its stage times and warnings, and the first camera, orbit,
    /// sheet and render statistics (outputs are added as they are stored).
    private func absorb(_ part: RunReport) {
        for entry in part.timings.entries { report.timings.add(entry.stage, entry.milliseconds) }
        report.note(part.warnings)
        report.camera = report.camera ?? part.camera
        report.orbit = report.orbit ?? part.orbit
        report.sheet = report.sheet ?? part.sheet
        report.renderStats = report.renderStats ?? part.renderStats
    }

    /// Runs `body`, turning its error into a failure of `stage`; `transientIO` marks an `io`
    /// error there as worth another attempt.
    private func step<T>(_ stage: RunReport.FailureStage, transientIO: Bool = false,
                         _ body: () throws(SplatError) -> T) throws(JobFailure) -> T {
        do {
            return try body()
        } catch {
            var cause = error
            if ![.timeout, .interrupted, .cancelled].contains(error.kind), let reason = token.reason {
                cause = token.error(for: reason, at: "during \(stage.rawValue)")
            }
            if transientIO && cause.kind == .io { transient = true }
            throw JobFailure(error: cause, stage: stage)
        }
    }
}
