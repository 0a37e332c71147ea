import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Cooperative cancellation for one job: a deadline, an explicit `cancel` (a signal, a client
/// that went away, a drained server) or both. Stages check it at their natural grain — per
/// stream or chunk in decoders, per chunk of splats in preprocessing, per tile in compositing,
/// per band of rows in image encoders — so an expired job stops inside a stage instead of
/// after it. Checking costs one relaxed atomic load plus, when a deadline is set, a clock read;
/// hot loops check once per chunk, never per splat or pixel.
///
/// A token is shared by reference between the job and whoever may cancel it; it is `Sendable`
/// and may be checked from any thread.
public final class CancellationToken: Sendable {
    /// Why a job was stopped; decides the error kind it ends with.
    public enum Reason: Int, Sendable, Equatable {
        /// The deadline passed (error kind `timeout`).
        case deadline = 1
        /// SIGINT or SIGTERM reached the process (error kind `interrupted`).
        case interrupted = 2
        /// The caller no longer wants the result: a client disconnected, a server drained
        /// past its grace period (error kind `cancelled`).
        case cancelled = 3
    }

    /// A token that is never cancelled, for callers that do not need one.
    public static let none = CancellationToken()

    private let state = Atomic<Int>(0)
    /// When the deadline passes; nil for none.
    public let deadline: ContinuousClock.Instant?
    /// The deadline's length as given, for messages.
    public let budget: Duration?
    /// A wider scope this token also stops with (a batch's or a server's token for signals and
    /// draining, above each job's own deadline).
    public let parent: CancellationToken?

    /// A token with no deadline.
    public init() {
        deadline = nil
        budget = nil
        parent = nil
    }

    /// A token that expires `budget` after `start` (nil: never) or when `parent` is cancelled.
    public init(budget: Duration?, start: ContinuousClock.Instant = .now, parent: CancellationToken? = nil) {
        self.budget = budget
        deadline = budget.map { start + $0 }
        self.parent = parent
    }

    /// A token that expires `seconds` after `start` (nil, negative or non-finite: never) or when
    /// `parent` is cancelled.
    public convenience init(seconds: Double?, start: ContinuousClock.Instant = .now, parent: CancellationToken? = nil) {
        if let seconds, seconds.isFinite, seconds >= 0 {
            self.init(budget: .nanoseconds(Int64(min(seconds, 1e9) * 1e9)), start: start, parent: parent)
        } else {
            self.init(budget: nil, start: start, parent: parent)
        }
    }

    /// Stops the job at its next check. The first reason given wins.
    public func cancel(_ reason: Reason = .cancelled) {
        _ = state.compareExchange(expected: 0, desired: reason.rawValue, ordering: .relaxed)
    }

    /// The reason the job must stop, or nil while it may go on. A passed deadline is recorded
    /// on the first check that sees it, so every later check agrees.
    public var reason: Reason? {
        let raw = state.load(ordering: .relaxed)
        if raw != 0 { return Reason(rawValue: raw) }
        if let inherited = parent?.reason {
            cancel(inherited)
            return Reason(rawValue: state.load(ordering: .relaxed))
        }
        if let deadline, ContinuousClock.now >= deadline {
            cancel(.deadline)
            return Reason(rawValue: state.load(ordering: .relaxed))
        }
        return nil
    }

    /// Whether the job must stop.
    public var isCancelled: Bool { reason != nil }

    /// Time left before the deadline (nil without one; zero once passed).
    public var remaining: Duration? {
        guard let deadline else { return nil }
        let left = deadline - ContinuousClock.now
        return left > .zero ? left : .zero
    }

    /// Throws the error for the reason the job must stop; `point` says where it stopped
    /// ("while compositing tiles"), so the message tells which stage the deadline caught.
    @inline(__always)
    public func check(_ point: @autoclosure () -> String) throws(SplatError) {
        guard let reason else { return }
        throw error(for: reason, at: point())
    }

    /// The error a job stopped for `reason` at `point` ends with.
    public func error(for reason: Reason, at point: String) -> SplatError {
        switch reason {
        case .deadline:
            let limit = expiredBudget.map { Self.seconds($0) } ?? "?"
            return SplatError(.timeout, "deadline of \(limit) s expired \(point)")
        case .interrupted:
            return SplatError(.interrupted, "interrupted by a signal \(point)")
        case .cancelled:
            return SplatError(.cancelled, "cancelled \(point)")
        }
    }

    /// The length of the deadline that stopped the job: this token's, or — when the deadline
    /// came from a wider scope (a server request's, around the job's own) — the first
    /// ancestor's that has passed.
    private var expiredBudget: Duration? {
        var token: CancellationToken? = self
        while let current = token {
            if let deadline = current.deadline, ContinuousClock.now >= deadline { return current.budget }
            token = current.parent
        }
        return budget
    }

    static func seconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        let value = Double(s) + Double(atto) / 1e18
        return String((value * 1000).rounded() / 1000)
    }

    // MARK: The job's token on its thread

    /// The token of the job running on this thread, if it bound one: how decoders and other
    /// stages deep below a job find its deadline without every signature in between carrying it.
    /// Bound only for the duration of `bind`; worker threads of `Parallel` do not see it (the
    /// loop driver checks it between chunks on their behalf).
    public static var current: CancellationToken? {
        guard let raw = pthread_getspecific(currentKey) else { return nil }
        return Unmanaged<CancellationToken>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Runs `body` with this token as `current` on this thread.
    public func bind<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = pthread_getspecific(currentKey)
        pthread_setspecific(currentKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(currentKey, previous) }
        return try withExtendedLifetime(self) { () throws(E) -> T in try body() }
    }

    /// `current?.check(point)`: throws when the job bound to this thread must stop.
    @inline(__always)
    public static func checkCurrent(_ point: @autoclosure () -> String) throws(SplatError) {
        guard let token = current else { return }
        try token.check(point())
    }
}

/// The thread-specific slot of `CancellationToken.current`.
private let currentKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()
