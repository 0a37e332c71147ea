import Dispatch
import Foundation
import SplatCore
import Synchronization

/// Runs a handler over a Redis stream as one member of a consumer group, with at-least-once
/// delivery: Redis keeps the pending-entries list, delivery counts and holders, so any worker
/// may die at any moment and its entries are finished by another after the lease.
///
/// One loop thread (the caller of `run`) reads new entries (`XREADGROUP … BLOCK`) only while
/// a handler slot is free, so unread work stays in the stream for other workers; it also
/// claims stale entries (`XAUTOCLAIM`, min-idle = lease) and extends the leases of the entries
/// it holds (`XCLAIM … JUSTID` every lease/3). Each entry runs on its own thread, and its end
/// is recorded in this order: result `XADD` → dead letter `XADD` (failures) → `XACK`. An entry
/// is never acknowledged before its result is written; a crash between the two means a
/// duplicate result, never a lost one.
///
/// The loop thread and the job threads use separate connections, so a blocking read never
/// delays a result.
public final class StreamConsumer: Sendable {
    /// Runs one entry. Called on a thread of its own; may block for as long as the job takes.
    public typealias Handler = @Sendable (StreamEntry, StreamDelivery) -> StreamOutcome
    /// Result fields (such as `id`) for an entry given up without a run: it was delivered more
    /// than `maxAttempts` times because earlier attempts died with their workers.
    public typealias AbandonedFields = @Sendable (StreamEntry) -> [StreamField]

    public let configuration: StreamConsumerConfiguration
    /// What this consumer did so far; read `counters.snapshot` for metrics.
    public let counters: StreamConsumerCounters
    let handler: Handler
    let abandonedFields: AbandonedFields
    let log: @Sendable (String) -> Void
    /// Reads, claims and lease extensions; used by the loop thread only.
    let reader: RedisClient
    /// Results, dead letters and acknowledgements, from the job threads.
    let writer: RedisClient
    let state = Mutex(State())
    /// Signalled when a job ends or `stop` is called, so the loop does not poll for free slots.
    let wake = DispatchSemaphore(value: 0)
    /// Cancelled by `stop`: the loop stops reading and any reconnect wait is cut short.
    let stopToken = CancellationToken()
    /// Cancelled once `run` stops waiting for jobs: writers stop retrying.
    let abandonToken = CancellationToken()

    struct Held {
        var cancellation: CancellationToken
        var attempt: Int
        /// Another worker claimed it while we ran it (we stopped extending in time).
        var lost = false
    }

    struct State {
        var started = false
        var held: [String: Held] = [:]
        var claimCursor = "0-0"
        /// A Redis error no retry can cure (wrong key type, refused login): stops the consumer.
        var fatal: SplatError?
    }

    /// A consumer for `configuration`; nothing connects until `run`.
    /// - Parameters:
    ///   - abandonedFields: result fields for entries given up without a run (default: none).
    ///   - counters: where the totals go (give one with an observer to feed metrics).
    ///   - log: one line per notable event (claims, retries, reconnects, dead letters).
    public init(configuration: StreamConsumerConfiguration,
                abandonedFields: @escaping AbandonedFields = { _ in [] },
                counters: StreamConsumerCounters = StreamConsumerCounters(),
                log: @escaping @Sendable (String) -> Void = { _ in },
                handler: @escaping Handler) {
        self.configuration = configuration
        self.counters = counters
        self.handler = handler
        self.abandonedFields = abandonedFields
        self.log = log
        reader = RedisClient(url: configuration.redis, options: configuration.redisOptions)
        writer = RedisClient(url: configuration.redis, options: configuration.redisOptions)
    }

    /// IDs of the entries this worker is running or recording now.
    public var heldEntryIDs: [String] { state.withLock { Array($0.held.keys) } }

    /// Connection counts of both connections, summed.
    public var connectionStats: RedisClient.ConnectionStats {
        let a = reader.stats, b = writer.stats
        return .init(connects: a.connects + b.connects, drops: a.drops + b.drops,
                     failedConnects: a.failedConnects + b.failedConnects)
    }

    /// Begins a graceful stop: no more reads or claims; in-flight jobs get `grace` to finish,
    /// then are cancelled. Safe from any thread (a signal handler's queue); `run` returns when
    /// the stop is complete.
    public func stop() {
        stopToken.cancel(.interrupted)
        wake.signal()
    }

    /// Creates the group if missing, then consumes until `stop` (returns normally, entries not
    /// finished stay pending) or a Redis error no retry can cure (throws it). Redis being down
    /// is not such an error: the consumer waits for it, reconnecting with backoff. Runs once.
    public func run() throws(SplatError) {
        try configuration.validate()
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        guard first else { throw SplatError(.invalidArgument, "a StreamConsumer runs once") }
        defer { reader.close() }
        if prepareGroup() { readLoop() }
        drain()
        if let fatal = state.withLock({ $0.fatal }) { throw fatal }
    }

    // MARK: - The loop

    /// Creates the group, riding out Redis being down. False when stopped or failed first.
    private func prepareGroup() -> Bool {
        let c = configuration
        while !stopToken.isCancelled {
            do {
                if try reader.createGroup(stream: c.stream, group: c.group, startID: c.groupStartID, cancellation: stopToken) {
                    log("created group \(c.group) on \(c.stream) at \(c.groupStartID)")
                }
                return true
            } catch {
                if !handle(error, during: "XGROUP CREATE") { return false }
            }
        }
        return false
    }

    private func readLoop() {
        let c = configuration
        var nextExtension = ContinuousClock.now + c.extensionInterval
        // Claim at once on start: a worker started to replace a dead one should take its work.
        var nextClaim = ContinuousClock.now
        while !stopToken.isCancelled && state.withLock({ $0.fatal == nil }) {
            do {
                var now = ContinuousClock.now
                if now >= nextExtension {
                    try extendLeases(cancellation: stopToken)
                    nextExtension = now + c.extensionInterval
                }
                if freeSlots > 0 && now >= nextClaim {
                    let more = try claimStale(count: freeSlots)
                    nextClaim = more ? now : now + c.effectiveClaimInterval
                }
                now = ContinuousClock.now
                // Wake up in time for the next lease extension (and, with a free slot, the next
                // claim sweep; with none, a job's end wakes the loop through the semaphore).
                let free = freeSlots
                var wait = min(c.readBlock, nextExtension - now)
                if free == 0 {
                    _ = wake.wait(timeout: .now() + .milliseconds(max(CancellableWait.milliseconds(wait), 1)))
                    continue
                }
                wait = max(min(wait, nextClaim - now), .milliseconds(1))
                let entries = try reader.readGroup(stream: c.stream, group: c.group, consumer: c.consumer,
                                                   count: free, block: wait, cancellation: stopToken)
                for entry in entries { start(entry, attempt: 1, claimed: false) }
            } catch {
                if !handle(error, during: "reading") { break }
            }
        }
    }

    /// Decides whether the loop goes on after `error`: yes for connection trouble (the client
    /// paces reconnects) and for a group that vanished (a Redis restart without persistence,
    /// a `FLUSHALL`, a deleted stream: recreate it); no for a stop or any other error, which
    /// becomes fatal.
    private func handle(_ error: SplatError, during what: String) -> Bool {
        if stopToken.isCancelled { return false }
        if error.kind == .io {
            counters.update { $0.redisErrors += 1 }
            log("redis trouble while \(what), retrying: \(error.message)")
            return true
        }
        // The error reply's code is the first word after the command name. UNBLOCKED is how a
        // blocked read learns that its stream was deleted under it.
        if ["NOGROUP", "UNBLOCKED"].contains(where: { error.message.contains(": \($0) ") }) {
            log("group \(configuration.group) is gone (redis lost its data?); creating it again")
            return prepareGroup()
        }
        fail(error)
        return false
    }

    func fail(_ error: SplatError) {
        log("stopping: \(error)")
        state.withLock { if $0.fatal == nil { $0.fatal = error } }
        stop()
    }

    var freeSlots: Int { configuration.concurrency - state.withLock { $0.held.count } }

    /// Starts a thread for `entry`; the entry counts as held from now until it is acknowledged
    /// or left pending.
    func start(_ entry: StreamEntry, attempt: Int, claimed: Bool) {
        let token = CancellationToken()
        let fresh = state.withLock { state -> Bool in
            guard state.held[entry.id] == nil else { return false }
            state.held[entry.id] = Held(cancellation: token, attempt: attempt)
            return true
        }
        // A sweep can claim an entry this worker is still running (its extension came late).
        guard fresh else { return }
        let delivery = StreamDelivery(attempt: attempt, maxAttempts: configuration.maxAttempts, claimed: claimed,
                                      worker: configuration.consumer, cancellation: token)
        let thread = Thread { [self] in
            if attempt > configuration.maxAttempts {
                abandon(entry, delivery)
            } else {
                counters.update { $0.attempts += 1 }
                finish(entry, delivery, handler(entry, delivery))
            }
            _ = state.withLock { $0.held.removeValue(forKey: entry.id) }
            wake.signal()
        }
        thread.name = "fleet-job"
        thread.start()
    }

    // MARK: - Stopping

    /// Waits for in-flight jobs up to the grace (still extending their leases, so no other
    /// worker starts them twice), then cancels the rest and waits `cancelWait` for them.
    private func drain() {
        let c = configuration
        let graceEnd = ContinuousClock.now + c.grace
        var nextExtension = ContinuousClock.now
        while !heldEntryIDs.isEmpty && ContinuousClock.now < graceEnd {
            if ContinuousClock.now >= nextExtension {
                do { try extendLeases(cancellation: abandonToken) } catch { log("lease extension while stopping: \(error.message)") }
                nextExtension = ContinuousClock.now + c.extensionInterval
            }
            let wait = max(min(graceEnd, nextExtension) - ContinuousClock.now, .milliseconds(1))
            _ = wake.wait(timeout: .now() + .milliseconds(CancellableWait.milliseconds(wait)))
        }
        let left = state.withLock { state in state.held.values.map(\.cancellation) }
        if !left.isEmpty {
            log("grace over: cancelling \(left.count) job(s); their entries stay pending")
            for token in left { token.cancel(.interrupted) }
            let cancelEnd = ContinuousClock.now + c.cancelWait
            while !heldEntryIDs.isEmpty && ContinuousClock.now < cancelEnd {
                _ = wake.wait(timeout: .now() + .milliseconds(50))
            }
        }
        abandonToken.cancel(.cancelled)
    }
}
