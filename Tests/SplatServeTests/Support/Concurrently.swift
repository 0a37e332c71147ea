import Foundation
import Synchronization

/// Runs `body(i)` for `i` in `0..<count`, each on its own thread (so blocking clients really
/// overlap even on two cores), and returns the results in index order; nil for any that did
/// not finish within `timeout` seconds.
func concurrently<T: Sendable>(_ count: Int, timeout: Double = 60, _ body: @escaping @Sendable (Int) -> T) -> [T?] {
    let slots = ResultSlots<T>(count)
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread.detachNewThread {
            let value = body(i)
            slots.values.withLock { $0[i] = value }
            group.leave()
        }
    }
    _ = group.wait(timeout: .now() + timeout)
    return slots.values.withLock { $0 }
}

/// A value being computed on its own thread.
final class Pending<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> T) {
        Thread.detachNewThread { [self] in
            let result = body()
            value.withLock { $0 = result }
            done.signal()
        }
    }

    /// The value, waiting at most `timeout` seconds (nil if it did not arrive in time).
    func wait(timeout: Double = 30) -> T? {
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        done.signal()
        return value.withLock { $0 }
    }
}

/// One result per index, filled from any thread.
final class ResultSlots<T: Sendable>: Sendable {
    let values: Mutex<[T?]>
    init(_ count: Int) { values = Mutex(Array(repeating: nil, count: count)) }
}
