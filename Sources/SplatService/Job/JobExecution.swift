import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// One run of a `SceneJob`: the mutable state (report, files written, the job's cancellation
/// token) of `execute()`. Planning views is in `ViewPlan.swift`, rendering and output in
/// `JobRendering.swift`.
final class JobExecution {
    let job: SceneJob
    let progress: ProgressHandler?
    /// The job's own deadline, under the caller's wider scope.
    let token: CancellationToken
    var report: RunReport
    let outputs: OutputTransaction
    var imageBytes: [UInt8]?
    var image: ImageBuffer?
    /// Coverage per output of the last rendering pass (`CoverageGuard`).
    var coverage = CoverageGuard.Tally()

    init(job: SceneJob, progress: ProgressHandler?) {
        self.job = job
        self.progress = progress
        // The deadline counts from when the header was read, if the caller read it.
        let start = ContinuousClock.now - .nanoseconds(Int64(max(0, job.headerMilliseconds) * 1e6))
        token = CancellationToken(seconds: job.timeoutSeconds, start: start, parent: job.cancellation)
        report = RunReport(command: job.command, input: job.input.name, index: job.index, started: start)
        outputs = OutputTransaction(holds: job.holdsOutputs)
    }

    func execute() -> JobOutcome {
        do throws(JobFailure) {
            // Bound to this thread, the token reaches the decoders and the renderer below.
            try token.bind { () throws(JobFailure) in try perform() }
        } catch {
            report.failed(error.error, at: error.stage)
            if job.removeOutputsOnFailure { outputs.rollBack() }
        }
        report.finish()
        return JobOutcome(report: report, imageBytes: report.succeeded ? imageBytes : nil,
                          image: report.succeeded ? image : nil, heldOutputs: report.succeeded ? outputs.held : [])
    }

    /// Runs `body`, turning its error into a failure of `stage`.
    func step<T>(_ stage: RunReport.FailureStage, _ body: () throws(SplatError) -> T) throws(JobFailure) -> T {
        do {
            return try body()
        } catch {
            // Whatever a stage stopped mid-way threw, a passed deadline or a signal is the reason.
            let whole: Set<SplatErrorKind> = [.timeout, .interrupted, .cancelled]
            var cause = error
            if !whole.contains(error.kind), let reason = token.reason {
                cause = token.error(for: reason, at: "during \(stage.rawValue)")
            }
            // A deadline or a signal is about the input as a whole: name it.
            throw JobFailure(error: whole.contains(cause.kind) ? cause.inFile(job.input.name) : cause, stage: stage)
        }
    }

    /// Stops the job when its token says so.
    func checkCancellation(_ point: @autoclosure () -> String, stage: RunReport.FailureStage) throws(JobFailure) {
        try step(stage) { () throws(SplatError) in try token.check(point()) }
    }

    func emit(_ stage: String, _ done: Int, _ total: Int) {
        guard let progress else { return }
        progress(ProgressEvent(stage: stage, done: done, total: total,
                               milliseconds: StageTimings.milliseconds(ContinuousClock.now - report.started),
                               input: job.input.name))
    }

    private func perform() throws(JobFailure) {
        let limits = job.load.limits
        try step(.output) { () throws(SplatError) in
            // Held outputs are only named by their paths: there is no file to check yet.
            if !job.holdsOutputs {
                try OutputPreflight.check(files: job.outputFiles, folders: job.framesDirectory.map { [$0] } ?? [], input: job.input)
            }
            // An image format that cannot be told is a usage error before anything is decoded.
            for path in job.outputFiles where path != job.animation?.path { _ = try job.encoding.resolvedFormat(for: path) }
        }

        // Header first: admission is decided before a byte of the body is decoded.
        let header: SceneHeader
        if let preloaded = job.preloaded {
            header = preloaded.header
        } else if let known = job.header {
            header = known
            report.timings.add(.readHeader, job.headerMilliseconds)
        } else {
            header = try step(.input) { () throws(SplatError) in
                try report.time(.readHeader) { () throws(SplatError) in
                    try SceneLoader.readHeader(job.input, format: job.load.format, limits: limits)
                }
            }
        }
        report.header = header
        let verdict = SceneAdmission.verdict(for: job, header: header, inputBytes: SceneAdmission.inputBytes(of: job.input, header: header),
                                             memoryBudget: job.memoryBudget)
        report.verdict = verdict
        report.note(header.warnings)
        if let refusal = verdict.refusal(file: job.input.name) {
            // Refused from the header: the header's facts are all the decision will ever see.
            report.decision = FrameDecision.decide(header.frameFacts, options: job.load.frame)
            throw JobFailure(error: refusal, stage: .input)
        }
        try checkCancellation("before decoding", stage: .input)

        let loaded: LoadedScene
        if let preloaded = job.preloaded {
            loaded = preloaded
        } else {
            emit("decode", 0, 1)
            loaded = try decode(format: header.format)
            emit("decode", 1, 1)
        }
        let scene = loaded.scene
        report.header = loaded.header
        report.decodedCount = scene.count
        report.decision = loaded.decision
        report.upEstimate = loaded.upEstimate
        report.note(loaded.header.warnings + scene.warnings)
        try checkCancellation("after decoding", stage: .input)

        try renderGuarded(scene: scene, decision: loaded.decision, format: loaded.header.format,
                          everySplatUsable: loaded.decoded.everySplatUsable)
        report.note(scene.warnings)
    }

    /// Decodes the job's input in the form a job renders: SH stays in the file's codes where it
    /// has them.
    private func decode(format: SplatFormat) throws(JobFailure) -> LoadedScene {
        var load = job.load
        load.format = format
        load.shStorage = .quantized
        return try step(.input) { () throws(SplatError) in
            try SceneLoader.load(job.input, options: load, timings: &report.timings)
        }
    }

    /// Plans and renders the views under the blank-frame guard (`CoverageGuard`).
    /// `everySplatUsable`: the decoder proved it (`DecodedScene.everySplatUsable`), so the
    /// renderer need not count unusable splats.
    private func renderGuarded(scene: SplatScene, decision: FrameDecision, format: SplatFormat,
                               everySplatUsable: Bool) throws(JobFailure) {
        let camera = job.view.camera
        let autoFramed = job.needsOrbit
            || (job.image != nil && camera.trainingView == nil && (camera.position == nil || camera.target == nil))
        let threshold = max(CoverageGuard.lowCoverage, job.minCoverage ?? 0)
        report.framingExtent = autoFramed ? .robust : nil
        var views = try planViews(scene: scene, decision: decision)
        var retried = false
        // A one-view job that decoded its own scene lets the renderer hand the scene back while it
        // projects (`Renderer.renderLastFrame`); the rare framing retry then decodes it again.
        let releases = job.preloaded == nil && views.count == 1
        var scene = scene, usable = everySplatUsable
        if try !renderViews(views, scene: scene, retryBelow: autoFramed ? threshold : nil, releasingScene: releases,
                            everySplatUsable: usable) {
            if releases {
                emit("decode", 0, 1)
                let again = try decode(format: format)
                (scene, usable) = (again.scene, again.decoded.everySplatUsable)
                emit("decode", 1, 1)
            }
            // What the first pass wrote is taken back; the second pass writes every output.
            outputs.rollBack()
            report.outputs = []
            report.camera = nil
            report.orbit = nil
            report.sheet = nil
            image = nil
            imageBytes = nil
            coverage = CoverageGuard.Tally()
            report.framingExtent = .allSplats
            report.note(["framing_retry: the automatic framing showed (almost) nothing; framed again with every splat (no percentile trimming)"])
            retried = true
            views = try planViews(scene: scene, decision: decision, extent: .allSplats)
            _ = try renderViews(views, scene: scene, everySplatUsable: usable)
        }
        for index in report.outputs.indices {
            if let c = coverage.coverage[report.outputs[index].role] { report.outputs[index].extra.append(("coverage", .double(c))) }
        }
        // Every output, also an image kept for the caller (it has no record here).
        for role in [OutputRecord.Role.image, .frames, .sheet, .animation] {
            guard let c = coverage.coverage[role] else { continue }
            let visible = coverage.visible[role] ?? 0
            if coverage.isLow(role, below: CoverageGuard.lowCoverage) {
                report.note([CoverageGuard.warning(role, coverage: c, visible: visible, retried: retried)])
            }
            if let least = job.minCoverage, c < least || visible == 0 {
                let percent = (c * 10_000).rounded() / 100
                throw JobFailure(error: SplatError(.blank, "the \(role.rawValue) covers \(percent) % of the frame, below --min-coverage \(least)", file: job.input.name, field: "min-coverage"),
                                 stage: .render)
            }
        }
    }
}
