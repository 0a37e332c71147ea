import SplatCore

/// A wall-clock budget for one input (`--timeout`). Jobs check it between stages and between
/// frames, so a single long stage (one huge decode or frame) runs to its end before the job stops.
public struct Deadline: Sendable {
    public let budget: Duration?
    public let start: ContinuousClock.Instant

    /// Starts now; nil `budget` never expires.
    public init(budget: Duration?, start: ContinuousClock.Instant = .now) {
        self.budget = budget
        self.start = start
    }

    /// Seconds as a `Duration`, nil for nil (non-finite or negative values never expire either).
    public init(seconds: Double?) {
        if let seconds, seconds.isFinite, seconds >= 0 {
            self.init(budget: .nanoseconds(Int64(min(seconds, 1e9) * 1e9)))
        } else {
            self.init(budget: nil)
        }
    }

    public var elapsed: Duration { ContinuousClock.now - start }

    public var hasExpired: Bool {
        guard let budget else { return false }
        return elapsed > budget
    }

    /// Throws `timeout` when the budget is spent; `point` says where the job stopped.
    public func check(_ point: @autoclosure () -> String) throws(SplatError) {
        guard let budget, elapsed > budget else { return }
        let spent = StageTimings.milliseconds(elapsed) / 1000
        let limit = StageTimings.milliseconds(budget) / 1000
        throw SplatError(.timeout, "deadline of \(Self.seconds(limit)) s expired \(point()) (\(Self.seconds(spent)) s elapsed)")
    }

    static func seconds(_ s: Double) -> String { String((s * 1000).rounded() / 1000) }
}
