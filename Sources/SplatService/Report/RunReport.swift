import SplatCore
import SplatFormats
import SplatRender

/// The machine-readable account of one input's run: written by `--report` (one JSON object for
/// `render`, `turntable`, `convert`; one line per input of a `thumbnails` batch) and printed by
/// `--json`.
///
/// The encoding (`json`, `jsonLine`) is stable: keys are snake_case, always present in this order
/// (null when unknown), and new keys are only ever added:
/// `command`, `index` (batches only), `id` (fleet jobs only), `input`, `status` ("ok" or the error kind), `message`,
/// `exit_code` (when the caller sets one), `error`, the header facts `format` `version` `count`
/// `sh_degree` `model` `declared_frame` `conventional_frame`, `camera_hints`, `decoded_count`,
/// `ceiling`, `frame_decision`, `camera`, `orbit`, `sheet`, `render_stats`, `framing_extent`, `outputs`, `warnings`,
/// `timings_ms` (per stage plus `total`), `stages_ms` (decode, frame, render, encode),
/// `peak_rss_bytes` (process-wide).
public struct RunReport: Sendable, Encodable {
    /// Where a failure happened; decides the CLI's exit status together with the error kind.
    public enum FailureStage: String, Sendable, Codable {
        /// Reading, checking or decoding the input.
        case input
        /// Choosing cameras or rendering.
        case render
        /// Encoding images or scenes.
        case encode
        /// Writing an output file or stream.
        case output
    }

    /// Aggregated renderer statistics over a job's views (the first view's counts, every view's
    /// coverage range and summed times).
    public struct RenderSummary: Sendable, Equatable {
        public var views: Int = 0
        public var visibleSplats: Int = 0
        public var tilePairs: Int = 0
        /// Coverage of the first view (mean alpha over the image).
        public var coverage: Double = 0
        public var coverageMin: Double = 1
        public var coverageMax: Double = 0
        public var antialiased: Bool = false
        public var droppedSplats: Int = 0
        public var preprocessMilliseconds: Double = 0
        public var binSortMilliseconds: Double = 0
        public var compositeMilliseconds: Double = 0

        public init() {}

        /// Adds one rendered view.
        public mutating func add(_ result: RenderResult) {
            if views == 0 {
                visibleSplats = result.stats.visibleSplats
                tilePairs = result.stats.tilePairs
                coverage = result.coverage
            }
            views += 1
            coverageMin = min(coverageMin, result.coverage)
            coverageMax = max(coverageMax, result.coverage)
            preprocessMilliseconds += result.stats.preprocessSeconds * 1000
            binSortMilliseconds += result.stats.binSortSeconds * 1000
            compositeMilliseconds += result.stats.compositeSeconds * 1000
        }

        public var json: JSONValue {
            .object([
                ("views", .int(views)),
                ("visible_splats", .int(visibleSplats)),
                ("tile_pairs", .int(tilePairs)),
                ("coverage", .double(coverage)),
                ("coverage_min", .double(coverageMin)),
                ("coverage_max", .double(coverageMax)),
                ("antialiased", .bool(antialiased)),
                ("dropped_splats", .int(droppedSplats)),
                ("preprocess_ms", .double(StageTimings.rounded(preprocessMilliseconds))),
                ("bin_sort_ms", .double(StageTimings.rounded(binSortMilliseconds))),
                ("composite_ms", .double(StageTimings.rounded(compositeMilliseconds))),
            ])
        }
    }

    /// `render`, `turntable`, `thumbnails`, `convert` (or a caller's own name).
    public var command: String
    /// The input as given or found.
    public var input: String
    /// Position of the input in a batch (input order), nil outside batches.
    public var index: Int?
    /// The `id` of a fleet job (the job schema's), reported as `id` after `index`; nil otherwise.
    public var jobID: String?
    public var error: SplatError?
    public var failedStage: FailureStage?
    /// The process exit status this outcome maps to, when the caller (the CLI) sets one.
    public var exitCode: Int32?
    public var header: SceneHeader?
    public var verdict: AdmissionVerdict?
    public var decodedCount: Int?
    public var decision: FrameDecision?
    /// The up estimated from the splats, in the stored frame.
    public var upEstimate: UpEstimate?
    public var camera: CameraRequest.Resolved?
    public var orbit: Turntable?
    /// The contact sheet's views, when one was made.
    public var sheet: JSONValue?
    public var renderStats: RenderSummary?
    /// Which splats framed the views: `robust`, or `all_splats` after the blank-frame guard's
    /// retry (`CoverageGuard`); nil when nothing was framed automatically.
    public var framingExtent: AutoFramer.Extent?
    public var outputs: [OutputRecord] = []
    public var warnings: [String] = []
    public var timings = StageTimings()
    public var peakResidentBytes: Int?
    public let started: ContinuousClock.Instant
    /// Frozen by `finish()`; until then `total` is measured live.
    public private(set) var totalMilliseconds: Double?

    public init(command: String, input: String, index: Int? = nil, started: ContinuousClock.Instant = .now) {
        self.command = command
        self.input = input
        self.index = index
        self.started = started
    }

    /// "ok", or the error kind (`too_large`, `truncated`, `timeout`, …).
    public var status: String { error?.kind.rawValue ?? (skipped ? "skipped" : "ok") }
    /// A batch input not run because its outputs already existed (`--skip-existing`).
    public var skipped = false
    public var succeeded: Bool { error == nil }
    /// The error's message, "" on success.
    public var message: String { error?.message ?? "" }

    /// Runs `body` and adds its wall time to `stage`.
    public mutating func time<T, E: Error>(_ stage: JobStage, _ body: () throws(E) -> T) throws(E) -> T {
        try timings.time(stage, body)
    }

    /// Marks the run failed (the first failure wins).
    public mutating func failed(_ error: SplatError, at stage: FailureStage) {
        guard self.error == nil else { return }
        self.error = error
        failedStage = stage
    }

    /// Adds warnings not already listed.
    public mutating func note(_ new: [String]) {
        for w in new where !warnings.contains(w) { warnings.append(w) }
    }

    /// Freezes the total time and records the process's peak memory.
    public mutating func finish() {
        totalMilliseconds = StageTimings.milliseconds(ContinuousClock.now - started)
        peakResidentBytes = PeakMemory.residentBytes()
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("command", .string(command))]
        if let index { fields.append(("index", .int(index))) }
        if let jobID { fields.append(("id", .string(jobID))) }
        fields += [
            ("input", .string(input)),
            ("status", .string(status)),
            ("message", .string(message)),
        ]
        if let exitCode { fields.append(("exit_code", .int(Int(exitCode)))) }
        if let error {
            fields.append(("error", .object(error.jsonFields + [("stage", .optional(failedStage) { .string($0.rawValue) })])))
        } else {
            fields.append(("error", .null))
        }
        if let header {
            fields += header.jsonFields
        } else {
            fields += ["format", "version", "count", "sh_degree", "model", "declared_frame", "conventional_frame"].map { ($0, .null) }
        }
        fields += [
            ("camera_hints", header?.cameraHintsJSON ?? .null),
            ("decoded_count", .optional(decodedCount) { .int($0) }),
            ("ceiling", verdict?.json ?? .null),
            ("estimated_peak_bytes", .optional(verdict?.estimate) { .int($0.totalBytes) }),
            ("memory_estimate", verdict?.estimate?.json ?? .null),
            ("frame_decision", decision?.json ?? .null),
            ("up_estimate", upEstimate?.json ?? .null),
            ("camera", camera?.json ?? .null),
            ("orbit", orbit?.json ?? .null),
            ("sheet", sheet ?? .null),
            ("render_stats", renderStats?.json ?? .null),
            ("framing_extent", .optional(framingExtent) { .string($0.rawValue) }),
            ("outputs", .array(outputs.map(\.json))),
            ("warnings", .array(warnings.map { .string($0) })),
        ]
        let total = totalMilliseconds ?? StageTimings.milliseconds(ContinuousClock.now - started)
        var times = timings.entries.map { ($0.stage.rawValue, JSONValue.double(StageTimings.rounded($0.milliseconds))) }
        times.append(("total", .double(StageTimings.rounded(total))))
        fields.append(("timings_ms", .object(times)))
        fields.append(("stages_ms", .object(JobStage.Category.allCases.map {
            ($0.rawValue, .double(StageTimings.rounded(timings.total($0))))
        })))
        fields.append(("peak_rss_bytes", .optional(peakResidentBytes) { .int($0) }))
        return .object(fields)
    }

    /// The report on one line (JSON Lines), without the newline.
    public var jsonLine: String { json.serialized(pretty: false) }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// Writes the report (pretty, newline-terminated) to `path` atomically.
    public func write(to path: String) throws(SplatError) {
        try AtomicFileWriter.write(Array((json.serialized() + "\n").utf8), to: path)
    }
}
