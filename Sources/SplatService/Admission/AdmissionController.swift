import Foundation
import SplatCore

/// Decides when a job may start: at most `workers` jobs run at once, their estimated peaks
/// together stay within `memoryBudgetBytes`, and at most `queueLimit` jobs wait, in arrival
/// order, for both a worker slot and a reservation. Shared by the HTTP server, the fleet worker
/// and batch runs, so one rule governs every way a job reaches the machine.
///
/// Order is strict first-in, first-out: a small job never overtakes a large one at the head of
/// the queue, so a large job cannot starve behind a stream of small ones. The cost is that a
/// worker may idle while the head waits for memory; with the default budget (twice the service
/// ceiling) that happens only when two near-ceiling jobs are already running.
///
/// Two ways in: `admit` blocks until the job may start (batch and fleet threads), while
/// `enqueue` only takes a place — or refuses at once — and returns an `AdmissionWaiter` that a
/// worker thread waits on later, so an I/O thread can learn "busy" without ever blocking.
///
/// Thread-safe: all state is guarded by one `NSCondition`, which is also what waiters sleep on.
public final class AdmissionController: @unchecked Sendable {
    /// Jobs that may run at once.
    public let workers: Int
    /// Jobs that may wait for a worker and a reservation; one more is refused as `busy`.
    public let queueLimit: Int
    /// Bytes the running jobs' estimates may add up to.
    public let memoryBudgetBytes: Int

    /// How long a waiter sleeps before it looks at its token again. Grants and withdrawals wake
    /// waiters at once; the slice only bounds how late an explicit `cancel()` (a client that went
    /// away) is noticed, since a token has no way to signal us.
    static let cancellationPollSlice: TimeInterval = 0.02

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var running = 0
    private var reserved = 0
    private var queue: [Entry] = []

    /// One job's place: waiting in the queue, granted (its worker slot and bytes are counted),
    /// claimed by a ticket (which now owns the release), or gone.
    final class Entry {
        enum State { case waiting, granted, claimed, gone }
        let bytes: Int
        let enqueued: ContinuousClock.Instant
        var state: State = .waiting
        init(bytes: Int) {
            self.bytes = bytes
            enqueued = .now
        }
    }

    /// Default workers (`--workers`): one per core, since each job's stages already use the
    /// cores in parallel and more would only interleave them.
    public static var defaultWorkers: Int { Parallel.processorCount }
    /// Default queue (`--queue`): twice the workers, enough to keep every worker fed while the
    /// next jobs upload, short enough that a queued job starts within a couple of job times.
    public static func defaultQueueLimit(workers: Int) -> Int { 2 * max(1, workers) }
    /// Default budget (`--memory-budget`): twice the 768 MiB service ceiling, so two
    /// ceiling-sized jobs can run at once.
    public static let defaultMemoryBudgetBytes = 2 * DecodeLimits.serviceCeilingBytes

    /// A controller; `workers` is at least 1, `queueLimit` and `memoryBudgetBytes` at least 0.
    public init(workers: Int, queueLimit: Int, memoryBudgetBytes: Int) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        self.memoryBudgetBytes = max(0, memoryBudgetBytes)
    }

    /// Waits in arrival order until a worker slot is free and `estimatedBytes` can be reserved,
    /// and returns the ticket that holds both. Refuses at once when the queue is full (`busy`) or
    /// the estimate alone exceeds the budget (`tooLarge`); gives up when `cancellation` expires
    /// (`expired`) or is cancelled (`cancelled`) while waiting.
    public func admit(estimatedBytes: Int, cancellation: CancellationToken = .none) throws(AdmissionRefusal) -> AdmissionTicket {
        try enqueue(estimatedBytes: estimatedBytes, cancellation: cancellation).wait()
    }

    /// Takes a place in the queue without waiting (granting at once when nothing is queued and
    /// the job fits), or refuses at once with `busy`, `tooLarge` or `cancelled`.
    public func enqueue(estimatedBytes: Int, cancellation: CancellationToken = .none) throws(AdmissionRefusal) -> AdmissionWaiter {
        let bytes = max(0, estimatedBytes)
        if let reason = cancellation.reason {
            throw AdmissionRefusal(reason: reason == .deadline ? .expired : .cancelled,
                                   message: "the job was \(reason == .deadline ? "past its deadline" : "cancelled") before it was queued")
        }
        guard bytes <= memoryBudgetBytes else {
            throw AdmissionRefusal(reason: .tooLarge,
                                   message: "the job's estimated peak of \(bytes) bytes exceeds the memory budget of \(memoryBudgetBytes) bytes")
        }
        let entry = Entry(bytes: bytes)
        let refusal: AdmissionRefusal? = condition.withLock {
            if queue.isEmpty, fits(entry) {
                grant(entry)
                return nil
            }
            guard queue.count < queueLimit else {
                return AdmissionRefusal(reason: .busy,
                                        message: "all \(workers) workers are busy and the queue of \(queueLimit) is full")
            }
            queue.append(entry)
            return nil
        }
        if let refusal { throw refusal }
        return AdmissionWaiter(controller: self, entry: entry, cancellation: cancellation)
    }

    /// Counts at this moment.
    public var snapshot: AdmissionSnapshot {
        condition.withLock {
            AdmissionSnapshot(inFlight: running, queued: queue.count, reservedBytes: reserved,
                              workers: workers, queueLimit: queueLimit, memoryBudgetBytes: memoryBudgetBytes)
        }
    }

    // MARK: - Used by AdmissionWaiter and AdmissionTicket

    /// Blocks until `entry` is granted (claiming it) or `cancellation` stops the wait.
    func wait(for entry: Entry, cancellation: CancellationToken) throws(AdmissionRefusal) -> AdmissionTicket {
        let outcome: Result<Duration, AdmissionRefusal> = condition.withLock {
            while true {
                switch entry.state {
                case .granted:
                    entry.state = .claimed
                    return .success(ContinuousClock.now - entry.enqueued)
                case .claimed, .gone:
                    return .failure(AdmissionRefusal(reason: .cancelled, message: "the place in the queue was already used or withdrawn"))
                case .waiting:
                    break
                }
                if let reason = cancellation.reason {
                    removeLocked(entry)
                    let waited = StageTimings.milliseconds(ContinuousClock.now - entry.enqueued) / 1000
                    return .failure(reason == .deadline
                        ? AdmissionRefusal(reason: .expired, message: "no worker and \(entry.bytes) bytes of the memory budget became free within the job's deadline (waited \(Self.seconds(waited)) s)")
                        : AdmissionRefusal(reason: .cancelled, message: "the job was cancelled while it waited for a worker"))
                }
                var until = Date(timeIntervalSinceNow: Self.cancellationPollSlice)
                if let remaining = cancellation.remaining {
                    until = min(until, Date(timeIntervalSinceNow: StageTimings.milliseconds(remaining) / 1000))
                }
                _ = condition.wait(until: until)
            }
        }
        switch outcome {
        case .success(let waited): return AdmissionTicket(controller: self, bytes: entry.bytes, waited: waited)
        case .failure(let refusal): throw refusal
        }
    }

    /// Gives up a place: a waiting entry leaves the queue, a granted but unclaimed one returns
    /// its slot and bytes. Claimed entries belong to their ticket and are left alone.
    func withdraw(_ entry: Entry) {
        condition.withLock { removeLocked(entry) }
    }

    /// Returns a ticket's worker slot and bytes, then grants whoever now fits.
    func release(bytes: Int) {
        condition.withLock {
            running -= 1
            reserved -= bytes
            assert(running >= 0 && reserved >= 0, "a ticket releases exactly once")
            pumpLocked()
        }
    }

    // MARK: - Private, with the lock held

    private func fits(_ entry: Entry) -> Bool {
        running < workers && reserved + entry.bytes <= memoryBudgetBytes
    }

    private func grant(_ entry: Entry) {
        running += 1
        reserved += entry.bytes
        entry.state = .granted
    }

    private func removeLocked(_ entry: Entry) {
        switch entry.state {
        case .waiting:
            queue.removeAll { $0 === entry }
            entry.state = .gone
            pumpLocked()
        case .granted:
            entry.state = .gone
            running -= 1
            reserved -= entry.bytes
            pumpLocked()
        case .claimed, .gone:
            break
        }
    }

    /// Grants from the head while the head fits; wakes every waiter when anything changed (the
    /// queue is small and bounded, so a broadcast costs less than a condition per entry).
    private func pumpLocked() {
        var changed = false
        while let head = queue.first, fits(head) {
            queue.removeFirst()
            grant(head)
            changed = true
        }
        if changed { condition.broadcast() }
    }

    static func seconds(_ s: Double) -> String { String((s * 1000).rounded() / 1000) }
}

/// The controller's counts at one moment, for `/metrics`, `/readyz` and tests.
public struct AdmissionSnapshot: Sendable, Equatable {
    /// Jobs holding a worker slot (granted, whether or not their ticket was claimed yet).
    public var inFlight: Int
    /// Jobs waiting for a worker and a reservation.
    public var queued: Int
    /// Bytes reserved by the jobs in flight.
    public var reservedBytes: Int
    public var workers: Int
    public var queueLimit: Int
    public var memoryBudgetBytes: Int

    /// Every worker is busy and the queue is full: the next job would be refused as `busy`.
    public var isSaturated: Bool { inFlight >= workers && queued >= queueLimit }
}
