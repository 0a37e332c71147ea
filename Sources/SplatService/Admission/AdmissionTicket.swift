import Synchronization
import SplatCore

/// A job's permission to run: one worker slot and `reservedBytes` of the memory budget. The
/// holder calls `release()` when the job is done; releasing again does nothing, and a ticket
/// that is dropped without release gives both back when it is freed, so no error path can
/// leak a slot or a reservation.
public final class AdmissionTicket: Sendable {
    /// The bytes this ticket holds from the budget.
    public let reservedBytes: Int
    /// Time spent in the queue before the grant (zero when granted at once).
    public let waited: Duration
    private let controller: AdmissionController
    private let released = Atomic<Bool>(false)

    init(controller: AdmissionController, bytes: Int, waited: Duration) {
        self.controller = controller
        reservedBytes = bytes
        self.waited = waited
    }

    deinit { release() }

    /// Whether the slot and bytes were given back.
    public var isReleased: Bool { released.load(ordering: .acquiring) }

    /// Gives the worker slot and the bytes back, exactly once.
    public func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        controller.release(bytes: reservedBytes)
    }
}

/// A place in an `AdmissionController`'s queue (or a grant not yet claimed). `wait()` blocks
/// until the job may start and returns its ticket; `withdraw()` gives the place up. Dropping a
/// waiter withdraws it, so an upload that fails before its job starts leaves nothing behind.
public final class AdmissionWaiter: Sendable {
    private let controller: AdmissionController
    // Only read here; its state is guarded by the controller's lock.
    nonisolated(unsafe) private let entry: AdmissionController.Entry
    private let cancellation: CancellationToken

    init(controller: AdmissionController, entry: AdmissionController.Entry, cancellation: CancellationToken) {
        self.controller = controller
        self.entry = entry
        self.cancellation = cancellation
    }

    deinit { controller.withdraw(entry) }

    /// Blocks until a worker slot and the reservation are granted, then returns the ticket.
    /// Throws `expired` when the token's deadline passes first and `cancelled` when the token
    /// is cancelled or the place was withdrawn. Call it once.
    public func wait() throws(AdmissionRefusal) -> AdmissionTicket {
        try controller.wait(for: entry, cancellation: cancellation)
    }

    /// Leaves the queue, or returns a grant nobody claimed. Safe to call more than once.
    public func withdraw() {
        controller.withdraw(entry)
    }
}
