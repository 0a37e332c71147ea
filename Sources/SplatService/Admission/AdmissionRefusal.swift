/// Why `AdmissionController` would not let a job start.
public struct AdmissionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        /// Every worker is busy and the queue is full: try again later (HTTP 503).
        case busy
        /// The job's estimate alone exceeds the whole memory budget: it can never run here (HTTP 413).
        case tooLarge = "too_large"
        /// The job's deadline passed while it waited for a worker or memory (HTTP 503: the
        /// server was too busy to start it in time, not a job that ran too long).
        case expired
        /// The job's token was cancelled (its client went away, the server stopped waiting).
        case cancelled
    }

    public var reason: Reason
    /// One sentence naming the numbers that decided it.
    public var message: String

    public init(reason: Reason, message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
