import SplatCore

/// How a batch went.
public struct BatchSummary: Sendable, Equatable {
    public var total = 0
    public var succeeded = 0
    /// Inputs per status ("ok", "too_large", "truncated", …).
    public var statusCounts: [String: Int] = [:]
    /// The first failure to append to the report log, if any (the batch still ran to the end).
    public var logError: SplatError?
    /// Most inputs that were decoding or rendering at the same time.
    public var peakRunning = 0
    /// Largest sum of estimated peaks in flight at once (never above the budget: an input whose
    /// estimate alone exceeds it is refused).
    public var peakRunningBytes = 0
    /// Whether a signal stopped the batch (inputs not started then have no report line).
    public var interrupted = false

    public var failed: Int { total - succeeded }
}
