import SplatCore

/// What a job produced: its report, and the single view when the caller asked for it.
public struct JobOutcome: Sendable {
    public var report: RunReport
    /// The single view's encoded bytes when `image` was `.caller`.
    public var imageBytes: [UInt8]?
    /// The single view's pixels (set whenever a single view was rendered).
    public var image: ImageBuffer?
    /// The encoded outputs of a job that `holdsOutputs`, in the order they were made; empty
    /// when it failed.
    public var heldOutputs: [HeldOutput] = []
}

/// One encoded output kept in memory, under the path the job named it by.
public struct HeldOutput: Sendable {
    public var path: String
    public var bytes: [UInt8]
}

/// A failure with the stage it happened in.
struct JobFailure: Error {
    var error: SplatError
    var stage: RunReport.FailureStage
}
