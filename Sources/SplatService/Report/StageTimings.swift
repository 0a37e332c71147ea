/// The named steps of a job whose wall time a report records. Raw values are the keys of the
/// report's `timings_ms` object, so they are part of the report format.
public enum JobStage: String, Sendable, CaseIterable, Codable {
    case readHeader = "read_header"
    case decode
    case convertFrame = "convert_frame"
    /// Estimating up from the splats (`UpEstimator`), before the frame decision.
    case estimateUp = "estimate_up"
    case framing
    /// Building the renderer's per-scene data (covariances, validity), once per scene.
    case prepare
    /// Rendering views; a turntable accumulates all its frames here.
    case render
    case downscale
    case composeSheet = "compose_sheet"
    case encodePNG = "encode_png"
    case encodeWebP = "encode_webp"
    case encodeJPEG = "encode_jpeg"
    /// Encoding a scene file (`convert`).
    case encode
    case write
    /// Downloading a fleet job's input (`http(s)://`).
    case fetch
    /// Uploading a fleet job's output (HTTP PUT).
    case upload

    /// The four coarse stages of `stages_ms`: decode (fetch, header, body), frame (conversion
    /// and camera framing), render (prepare + views), encode (images, sheets, animations and
    /// writing or uploading them).
    public var category: Category {
        switch self {
        case .fetch, .readHeader, .decode: .decode
        case .convertFrame, .estimateUp, .framing: .frame
        case .prepare, .render: .render
        case .downscale, .composeSheet, .encodePNG, .encodeWebP, .encodeJPEG, .encode, .write, .upload: .encode
        }
    }

    public enum Category: String, Sendable, CaseIterable, Codable {
        case decode, frame, render, encode
    }
}

/// Wall-clock milliseconds per stage, in the order stages first ran. A stage that runs again
/// (every frame of a turntable) adds to its first entry, so a report stays one line long.
public struct StageTimings: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var stage: JobStage
        public var milliseconds: Double
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    /// Adds `milliseconds` to `stage`.
    public mutating func add(_ stage: JobStage, _ milliseconds: Double) {
        if let i = entries.firstIndex(where: { $0.stage == stage }) {
            entries[i].milliseconds += milliseconds
        } else {
            entries.append(Entry(stage: stage, milliseconds: milliseconds))
        }
    }

    /// Runs `body` and adds its wall time to `stage` (also when it throws).
    public mutating func time<T, E: Error>(_ stage: JobStage, _ body: () throws(E) -> T) throws(E) -> T {
        let start = ContinuousClock.now
        defer { add(stage, Self.milliseconds(ContinuousClock.now - start)) }
        return try body()
    }

    /// The time recorded for `stage`, nil if it never ran.
    public subscript(stage: JobStage) -> Double? {
        entries.first { $0.stage == stage }?.milliseconds
    }

    /// Sum per coarse category (categories that never ran count 0).
    public func total(_ category: JobStage.Category) -> Double {
        entries.filter { $0.stage.category == category }.reduce(0) { $0 + $1.milliseconds }
    }

    /// "decode 12.3 ms, convert_frame 0.4 ms, …" for `--verbose`.
    public var summary: String {
        entries.map { "\($0.stage.rawValue) \(Self.format($0.milliseconds)) ms" }.joined(separator: ", ")
    }

    public static func milliseconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) * 1000 + Double(atto) / 1e15
    }

    /// Three significant-ish digits: "123", "12.3", "0.4".
    public static func format(_ ms: Double) -> String {
        ms >= 100 ? String(Int(ms.rounded())) : String((ms * 10).rounded() / 10)
    }

    /// Milliseconds rounded to a microsecond, as reports print them.
    static func rounded(_ ms: Double) -> Double { (ms * 1000).rounded() / 1000 }
}
