import SplatCore

/// How a handler's run of one entry ended; the consumer turns it into results, dead letters
/// and acknowledgements. The `fields` go into the result entry (and the dead letter) as they
/// are — typically `id` (the job's own ID) and `report` (its report JSON). The consumer adds
/// `status`, `attempt`, `worker` and `entry` itself and drops handler fields of those names.
public enum StreamOutcome: Sendable {
    /// Outputs are durable: result with `status` = `ok`, then acknowledge.
    case done(fields: [StreamField])
    /// Retrying cannot help (bad job, invalid scene, over the ceiling): result with `status` =
    /// the error kind, a dead letter with `reason` = the error kind, then acknowledge.
    case permanentFailure(SplatError, fields: [StreamField])
    /// Retrying may help (fetch or upload I/O, 5xx, connection loss): the entry stays pending
    /// and is claimed again after the lease, by any worker. On the last attempt it is given
    /// up instead: result with `status` = the error kind, dead letter with `reason` =
    /// `max_attempts`, acknowledge.
    case transientFailure(SplatError, fields: [StreamField])

    /// Error kinds retried by default: I/O is the one failure a later attempt can cure. A
    /// deadline (`timeout`) on the same scene would expire again, so it is final.
    public static let defaultTransientKinds: Set<SplatErrorKind> = [.io]

    /// The outcome for `error`: transient when its kind is in `transientKinds`.
    public static func failure(_ error: SplatError, fields: [StreamField] = [],
                               transientKinds: Set<SplatErrorKind> = defaultTransientKinds) -> StreamOutcome {
        transientKinds.contains(error.kind) ? .transientFailure(error, fields: fields) : .permanentFailure(error, fields: fields)
    }
}

/// One delivery of an entry to a handler: which attempt it is and how to notice being stopped.
public struct StreamDelivery: Sendable {
    /// The entry's delivery count (1 for the first read; each claim adds one).
    public let attempt: Int
    /// The configured `maxAttempts`.
    public let maxAttempts: Int
    /// Whether this worker took the entry over from another one (`XAUTOCLAIM`).
    public let claimed: Bool
    /// This worker's consumer name.
    public let worker: String
    /// Cancelled (`interrupted`) when the stop grace runs out, or (`cancelled`) when another
    /// worker took the entry over; pass it to the job. A transient failure after it is
    /// cancelled leaves the entry pending, whatever the attempt.
    public let cancellation: CancellationToken

    /// Whether a transient failure now will dead-letter the entry.
    public var isLastAttempt: Bool { attempt >= maxAttempts }
}

/// Names the consumer writes into result and dead entries (part of the stream schema).
public enum StreamResultField {
    public static let status = "status"
    public static let attempt = "attempt"
    public static let worker = "worker"
    /// The ID of the job's entry in the jobs stream.
    public static let entry = "entry"
    /// Dead letters: `max_attempts`, or the error kind of a permanent failure.
    public static let reason = "reason"
    /// Dead letters: `kind: message` of the last error.
    public static let error = "error"
    public static let maxAttemptsReason = "max_attempts"
    public static let ok = "ok"

    static let reserved: Set<String> = [status, attempt, worker, entry, reason, error]
}
