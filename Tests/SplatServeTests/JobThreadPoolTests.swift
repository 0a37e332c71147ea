import Foundation
import Synchronization
import Testing
@testable import SplatServe

/// The pool's promise to the server: below its limit, every task submitted gets a thread at once.
/// A job task waits for its admission place on that thread, so a task left queued behind another
/// can hold up a job the admission controller already let in, until the request's deadline.
@Suite struct JobThreadPoolTests {
    /// One thread goes idle, then two tasks arrive back to back, each waiting until both run.
    /// Counting the idle thread as free for the second task too (its wake-up still pending) left
    /// that task queued behind the first: they never ran together.
    @Test func tasksSubmittedBackToBackRunTogether() {
        let rounds = 100
        var stalled = 0
        for _ in 0..<rounds {
            let pool = JobThreadPool(limit: 8, name: "pool-test")
            defer { pool.shutdown(timeout: .seconds(5)) }
            // Leave one idle thread behind.
            let warm = DispatchSemaphore(value: 0)
            pool.submit { warm.signal() }
            #expect(warm.wait(timeout: .now() + 5) == .success)
            Thread.sleep(forTimeInterval: 0.002)

            let started = Atomic<Int>(0)
            let release = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            for _ in 0..<2 {
                pool.submit {
                    started.add(1, ordering: .sequentiallyConsistent)
                    // Bounded: a task that never meets its partner gives up after 10 s, later
                    // than the 5 s the round waits for both to start (generous for a loaded CI).
                    _ = release.wait(timeout: .now() + 10)
                    finished.signal()
                }
            }
            let deadline = Date(timeIntervalSinceNow: 5)
            while started.load(ordering: .sequentiallyConsistent) < 2 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.0005)
            }
            if started.load(ordering: .sequentiallyConsistent) < 2 { stalled += 1 }
            release.signal(); release.signal()
            for _ in 0..<2 { _ = finished.wait(timeout: .now() + 15) }
        }
        #expect(stalled == 0, "in \(stalled) of \(rounds) rounds the second task waited for the first to finish")
    }

    /// At the limit a task waits for a free thread, and still runs.
    @Test func atTheLimitTasksWaitTheirTurn() {
        let pool = JobThreadPool(limit: 2, name: "pool-test")
        defer { pool.shutdown(timeout: .seconds(5)) }
        let done = Atomic<Int>(0)
        let all = DispatchSemaphore(value: 0)
        for _ in 0..<6 {
            pool.submit {
                Thread.sleep(forTimeInterval: 0.005)
                if done.add(1, ordering: .sequentiallyConsistent).newValue == 6 { all.signal() }
            }
        }
        #expect(all.wait(timeout: .now() + 10) == .success)
        #expect(done.load(ordering: .sequentiallyConsistent) == 6)
    }
}
