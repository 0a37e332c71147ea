import Foundation
import SplatCore

/// Sleeping that a `CancellationToken` can cut short. The token has no wake-up hook, so the
/// wait looks at it every `slice`; 20 ms keeps a stopping worker responsive without spinning.
enum CancellableWait {
    static let slice: Duration = .milliseconds(20)

    /// Returns at `deadline`, or throws the token's error as soon as it is cancelled.
    static func until(_ deadline: ContinuousClock.Instant, cancellation: CancellationToken, point: String) throws(SplatError) {
        while true {
            try cancellation.check(point)
            let left = deadline - ContinuousClock.now
            if left <= .zero { return }
            Thread.sleep(forTimeInterval: seconds(min(left, slice)))
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, atto) = duration.components
        return Double(whole) + Double(atto) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (whole, atto) = duration.components
        return Int(whole) * 1000 + Int(atto / 1_000_000_000_000_000)
    }
}
