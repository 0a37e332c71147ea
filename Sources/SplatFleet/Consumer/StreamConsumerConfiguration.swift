import Foundation
import SplatCore
import SplatService

/// Everything a `StreamConsumer` needs to know besides the handler. Defaults are
/// `splatrender worker`'s documented ones (`WorkerDefaults`).
public struct StreamConsumerConfiguration: Sendable {
    /// The server (`--redis`).
    public var redis: RedisURL
    /// Timeouts and reconnect backoff of both connections.
    public var redisOptions = RedisClient.Options()
    /// The stream jobs are read from. In Redis Cluster, give every key the same hash tag
    /// (`{splatrender}:jobs`, `{splatrender}:results`, …) so they live in one slot.
    public var stream = WorkerDefaults.stream
    /// The consumer group every worker of the fleet joins.
    public var group = WorkerDefaults.group
    /// This worker's name in the group; unique per process so a restarted worker does not
    /// inherit a dead one's entries by name (they are claimed after the lease instead).
    public var consumer = StreamConsumerConfiguration.defaultConsumerName()
    /// Where one entry per finished job goes (`id`, `status`, `attempt`, `worker`, `entry`, `report`).
    public var results = WorkerDefaults.results
    /// Where given-up jobs go: the job's fields plus `reason` and `error`.
    public var dead = WorkerDefaults.dead
    /// How long an entry may sit idle in another worker's hands before it is claimed. A live
    /// worker extends its entries every lease/3, so only a stopped or stalled worker loses them.
    public var lease: Duration = .milliseconds(Int(WorkerDefaults.leaseSeconds * 1000))
    /// Deliveries an entry gets; a transient failure on the last one, or a delivery beyond
    /// it (earlier attempts died with their worker), sends it to the dead stream.
    public var maxAttempts = WorkerDefaults.maxAttempts
    /// Handlers run at once; also the most entries this worker holds.
    public var concurrency = WorkerDefaults.concurrency
    /// Longest `XREADGROUP … BLOCK`: bounds how long `stop()` takes to be noticed.
    public var readBlock: Duration = .seconds(2)
    /// How often to look for stale entries (`XAUTOCLAIM`); nil: lease/2, so a dead worker's
    /// entry is picked up between 1 and 1.5 leases after its last extension.
    public var claimInterval: Duration?
    /// Where a group created by this worker starts reading: `0` takes the jobs queued before
    /// any worker ran; `$` only new ones.
    public var groupStartID = "0"
    /// Approximate cap on the results stream (`XADD … MAXLEN ~`); nil: unbounded.
    public var resultsMaxLength: Int? = 1_000_000
    /// Approximate cap on the dead stream; nil (the default) keeps every dead letter.
    public var deadMaxLength: Int?
    /// How long `stop()` lets in-flight handlers finish before cancelling them.
    public var grace: Duration = .milliseconds(Int(WorkerDefaults.graceSeconds * 1000))
    /// After cancelling at the end of the grace, how long to wait for handlers to return.
    public var cancelWait: Duration = .seconds(5)

    /// The documented defaults, reading from `redis`.
    public init(redis: RedisURL) {
        self.redis = redis
    }

    /// `hostname-pid`, the default consumer name.
    public static func defaultConsumerName() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(getpid())"
    }

    var effectiveClaimInterval: Duration { claimInterval ?? lease / 2 }
    var extensionInterval: Duration { lease / 3 }

    /// Throws `invalid_argument` naming the first setting that cannot work.
    public func validate() throws(SplatError) {
        func fail(_ field: String, _ message: String) -> SplatError {
            SplatError(.invalidArgument, "\(field): \(message)", field: field)
        }
        for (field, value) in [("stream", stream), ("group", group), ("consumer", consumer), ("results", results), ("dead", dead)] {
            guard !value.isEmpty, value.utf8.count <= 512 else { throw fail(field, "must be 1…512 bytes") }
        }
        guard Set([stream, results, dead]).count == 3 else { throw fail("results", "stream, results and dead must be different keys") }
        guard lease >= .milliseconds(30) else { throw fail("lease", "must be at least 30 ms") }
        guard (1...1000).contains(maxAttempts) else { throw fail("max-attempts", "must be 1…1000") }
        guard (1...1024).contains(concurrency) else { throw fail("concurrency", "must be 1…1024") }
        guard readBlock >= .milliseconds(1) else { throw fail("read-block", "must be at least 1 ms") }
        guard effectiveClaimInterval >= .milliseconds(1) else { throw fail("claim-interval", "must be at least 1 ms") }
        guard grace >= .zero, cancelWait >= .zero else { throw fail("grace", "must not be negative") }
        if let resultsMaxLength, resultsMaxLength < 1 { throw fail("results-max-length", "must be positive") }
        if let deadMaxLength, deadMaxLength < 1 { throw fail("dead-max-length", "must be positive") }
    }
}
