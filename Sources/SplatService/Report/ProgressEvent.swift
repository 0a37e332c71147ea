/// A step of progress, for progress lines and for a supervising process (`--progress json`).
/// Only jobs and batches make these, so the memberwise initialiser stays internal.
public struct ProgressEvent: Sendable, Equatable {
    /// `decode`, `render`, `encode`, or `files` for a batch.
    public var stage: String
    public var done: Int
    public var total: Int
    /// Milliseconds since the job (or, for `files`, the batch) started.
    public var milliseconds: Double
    /// The input the event is about; nil for batch-wide events.
    public var input: String?

    /// `{"stage":"render","done":3,"total":36,"ms":1234.5,"input":"a.ply"}`.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("stage", .string(stage)),
            ("done", .int(done)),
            ("total", .int(total)),
            ("ms", .double((milliseconds * 10).rounded() / 10)),
        ]
        if let input { fields.append(("input", .string(input))) }
        return .object(fields)
    }
}

/// Receives progress events; may be called from several threads at once in a batch.
public typealias ProgressHandler = @Sendable (ProgressEvent) -> Void
