import SplatCore

/// What a job produced: its report, and the single view when the caller asked for it.
public struct JobOutcome: Sendable {
    public var report: RunReport
    /// The single view's encoded bytes when `image` was `.caller`.
    public var imageBytes: [UInt8]?
    /// The single view's pixels (set whenever a single view was rendered).
    public var image: ImageBuffer?
}

/// A failure with the stage it happened in.
struct JobFailure: Error {
    var error: SplatError
    var stage: RunReport.FailureStage
}
