import SplatCore
import SplatFormats
import SplatRender

/// Describing a scene, as `splatrender info` and the server's `/v1/info` do: the header alone
/// (a scene over the ceiling is described, not refused), or with `decodeBounds` a full decode
/// that adds the stored positions' bounds and whatever the body reveals (legacy SPZ extensions
/// sit after the data). With `computeStatistics` the decoded scene's `SceneStatistics` (stored
/// values, the file's own frame; the file size from the input) are added too. The frame decision
/// is made once, from the most complete facts read.
public struct InfoJob: Sendable {
    public var input: SceneInput
    public var load: LoadOptions
    public var decodeBounds: Bool
    /// `info --stats`: decode and compute `SceneStatistics`.
    public var computeStatistics: Bool

    public init(input: SceneInput, load: LoadOptions = LoadOptions(), decodeBounds: Bool = false,
                computeStatistics: Bool = false) {
        self.input = input
        self.load = load
        self.decodeBounds = decodeBounds
        self.computeStatistics = computeStatistics
    }

    /// The description; throws when even the header cannot be read. A failed bounds decode is
    /// reported inside the result (`boundsError`) with the header facts still given.
    public func run() throws(SplatError) -> SceneInfo {
        var header = try SceneLoader.readHeader(input, format: load.format, limits: load.limits)
        var facts = header.frameFacts
        var bounds: SceneBounds?
        var boundsError: SplatError?
        var upEstimate: UpEstimate?
        var statistics: SceneStatistics?
        if decodeBounds || computeStatistics {
            do throws(SplatError) {
                var flat = load
                flat.format = header.format
                let decoded = try SceneLoader.decodeFlattened(input, options: flat)
                if decodeBounds { bounds = SceneBounds(decoded.scene) }
                if computeStatistics {
                    statistics = SceneStatistics.compute(decoded.scene, fileBytes: SceneStatistics.inputFileBytes(input),
                                                         threads: load.threads)
                }
                header = decoded.header
                for warning in decoded.scene.warnings where !header.warnings.contains(warning) {
                    header.warnings.append(warning)
                }
                (facts, upEstimate) = SceneLoader.inferredFacts(decoded.scene, options: load)
            } catch {
                boundsError = error
            }
        }
        return SceneInfo(name: input.name, header: header, decision: FrameDecision.decide(facts, options: load.frame),
                         verdict: SceneAdmission.verdict(for: header, limits: load.limits),
                         boundsRequested: decodeBounds, bounds: bounds, boundsError: boundsError, upEstimate: upEstimate,
                         statisticsRequested: computeStatistics, statistics: statistics)
    }
}

/// What `InfoJob` found.
public struct SceneInfo: Sendable {
    public var name: String
    public var header: SceneHeader
    public var decision: FrameDecision
    public var verdict: AdmissionVerdict
    public var boundsRequested: Bool
    public var bounds: SceneBounds?
    public var boundsError: SplatError?
    /// The up estimated from the splats (stored frame); only when the scene was decoded.
    public var upEstimate: UpEstimate?
    public var statisticsRequested = false
    /// `info --stats`; nil when not asked for or when the decode failed (`boundsError` says why).
    public var statistics: SceneStatistics?

    /// The `info --json` object (also the body of `/v1/info`).
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [("file", .string(name))]
        fields += header.jsonFields
        fields += [
            ("frame_decision", decision.json),
            ("up_estimate", upEstimate?.json ?? .null),
            ("camera_hints", header.cameraHintsJSON),
            ("ceiling", verdict.json),
            ("warnings", .array(header.warnings.map { .string($0) })),
            ("details", header.detailsJSON),
        ]
        if boundsRequested {
            fields.append(("bounds", .optional(bounds) { $0.json(frame: decision.sourceFrame) }))
        }
        if statisticsRequested { fields.append(("stats", .optional(statistics) { $0.json })) }
        if (boundsRequested || statisticsRequested), let boundsError { fields.append(("bounds_error", boundsError.json)) }
        return .object(fields)
    }

    /// Label/value rows for the text form.
    public var rows: [(String, String)] {
        var rows: [(String, String)] = [
            ("file", SplatError.printable(name)),
            ("format", header.format.rawValue + (header.version.map { " version \($0)" } ?? "")),
            ("splats", String(header.count)),
            ("SH degree", String(header.shDegree) + (verdict.keptDegree != header.shDegree ? " (keeping \(verdict.keptDegree))" : "")),
            ("model", header.model.rawValue),
            ("frame", decision.summary),
            ("decoded size", verdict.summary),
        ]
        if let hints = header.cameraHints {
            rows.append(("camera hints", "elevation \(hints.elevationMin)…\(hints.elevationMax), min radius \(hints.radiusMin)"))
        }
        if let bounds {
            rows.append(("bounds", "min \(SceneBounds.describe(bounds.min)), max \(SceneBounds.describe(bounds.max)) (stored \(decision.sourceFrame.name) values, \(bounds.count) splats)"))
        }
        if let upEstimate {
            let c = (upEstimate.confidence * 100).rounded() / 100
            rows.append(("up estimate", "\(upEstimate.axis.rawValue) (stored frame), confidence \(c)" + (upEstimate.isConfident ? "" : " — below the threshold, not used")))
        }
        // The header's count is declared; the statistics count what the decode kept.
        if let statistics { rows += statistics.rows.map { ($0.label == "splats" ? "splats decoded" : $0.label, $0.value) } }
        for warning in header.warnings { rows.append(("warning", warning)) }
        for (key, value) in header.details.sorted(by: { $0.key < $1.key }) { rows.append((key, value)) }
        return rows
    }
}
