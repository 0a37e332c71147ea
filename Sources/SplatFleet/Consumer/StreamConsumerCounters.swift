import Synchronization

/// Running totals of what one consumer did, for the worker's metrics. Plain numbers behind a
/// lock: whoever exposes metrics (Prometheus text, a JSON status page) reads a `Snapshot`.
///
/// | metric | field |
/// |---|---|
/// | `splatrender_jobs_total{status}` | `jobsByStatus` (one per result written; `ok` or an error kind) |
/// | `splatrender_job_attempts_total` | `attempts` (handler runs) |
/// | `splatrender_jobs_claimed_total` | `claimed` (entries taken over from stale workers) |
/// | `splatrender_jobs_dead_total{reason}` | `deadByReason` (`max_attempts` or an error kind) |
public final class StreamConsumerCounters: Sendable {
    /// The totals at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Results written, by `status`.
        public var jobsByStatus: [String: Int] = [:]
        /// Handler runs (abandoned entries are not run).
        public var attempts = 0
        /// Entries taken over with `XAUTOCLAIM`.
        public var claimed = 0
        /// Dead letters written, by `reason`.
        public var deadByReason: [String: Int] = [:]
        /// Transient failures left pending for a later attempt.
        public var retriesPending = 0
        /// Entries left pending because this worker stopped or lost the lease mid-job.
        public var leftOnStop = 0
        /// Lease extensions sent (`XCLAIM … JUSTID`, one per entry).
        public var leaseExtensions = 0
        /// Redis command failures the consumer rode out (reconnects, busy servers).
        public var redisErrors = 0

        /// All zero.
        public init() {}

        /// All results written, whatever their status.
        public var jobs: Int { jobsByStatus.values.reduce(0, +) }
        /// All dead letters, whatever their reason.
        public var dead: Int { deadByReason.values.reduce(0, +) }
    }

    private let totals = Mutex(Snapshot())
    private let observer: (@Sendable (_ before: Snapshot, _ after: Snapshot) -> Void)?

    /// Counters at zero. `observer` sees every change as the totals before and after it, in
    /// order (it runs under the counters' lock: keep it short), so a metrics registry can count
    /// along without polling.
    public init(observer: (@Sendable (_ before: Snapshot, _ after: Snapshot) -> Void)? = nil) {
        self.observer = observer
    }

    /// A consistent copy of every total.
    public var snapshot: Snapshot { totals.withLock { $0 } }

    func update(_ change: (inout Snapshot) -> Void) {
        totals.withLock { totals in
            let before = totals
            change(&totals)
            observer?(before, totals)
        }
    }
}
