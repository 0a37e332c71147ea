import Foundation
import Synchronization
import Testing
import SplatCore
@testable import SplatService

@Suite struct AdmissionControllerTests {
    /// Names in the order things happened, from any thread.
    final class OrderLog: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    /// Waits on each waiter on its own thread and records the order of the grants.
    static func waitAll(_ waiters: [(String, AdmissionWaiter)], order: OrderLog, group: DispatchGroup, hold: Double = 0) {
        for (name, waiter) in waiters {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                guard let ticket = try? waiter.wait() else { return }
                order.append(name)
                if hold > 0 { Thread.sleep(forTimeInterval: hold) }
                ticket.release()
            }
        }
    }

    @Test func grantsInArrivalOrder() throws {
        let admission = AdmissionController(workers: 1, queueLimit: 8, memoryBudgetBytes: 1000)
        let first = try admission.admit(estimatedBytes: 10)
        let waiters = try (0..<6).map { ("job\($0)", try admission.enqueue(estimatedBytes: 10 * ($0 + 1))) }
        #expect(admission.snapshot.queued == 6)
        let order = OrderLog()
        let group = DispatchGroup()
        Self.waitAll(waiters, order: order, group: group, hold: 0.002)
        // Nothing is granted while the only worker is taken.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(order.all.isEmpty)
        first.release()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(order.all == (0..<6).map { "job\($0)" })
        #expect(admission.snapshot == AdmissionSnapshot(inFlight: 0, queued: 0, reservedBytes: 0, workers: 1, queueLimit: 8, memoryBudgetBytes: 1000))
    }

    @Test func smallJobDoesNotOvertakeTheHead() throws {
        let admission = AdmissionController(workers: 2, queueLimit: 4, memoryBudgetBytes: 100)
        let holder = try admission.admit(estimatedBytes: 60)
        let big = try admission.enqueue(estimatedBytes: 60)
        let small = try admission.enqueue(estimatedBytes: 10)
        // The small one would fit beside the holder, but the big one came first.
        #expect(admission.snapshot.inFlight == 1)
        #expect(admission.snapshot.queued == 2)
        holder.release()
        let bigTicket = try big.wait()
        let smallTicket = try small.wait()
        #expect(admission.snapshot.reservedBytes == 70)
        bigTicket.release()
        smallTicket.release()
        #expect(admission.snapshot.reservedBytes == 0)
    }

    @Test func refusesAtOnceWhenFullOrTooLarge() throws {
        let admission = AdmissionController(workers: 1, queueLimit: 1, memoryBudgetBytes: 100)
        let holder = try admission.admit(estimatedBytes: 1)
        let queued = try admission.enqueue(estimatedBytes: 1)
        #expect(admission.snapshot.isSaturated)
        let busy = #expect(throws: AdmissionRefusal.self) { try admission.enqueue(estimatedBytes: 1) }
        #expect(busy?.reason == .busy)
        let tooLarge = #expect(throws: AdmissionRefusal.self) { try admission.enqueue(estimatedBytes: 101) }
        #expect(tooLarge?.reason == .tooLarge)
        queued.withdraw()
        holder.release()
        #expect(admission.snapshot.inFlight == 0 && admission.snapshot.queued == 0 && admission.snapshot.reservedBytes == 0)
    }

    @Test func givesUpAtTheDeadlineWhileWaiting() throws {
        let admission = AdmissionController(workers: 1, queueLimit: 2, memoryBudgetBytes: 100)
        let holder = try admission.admit(estimatedBytes: 50)
        let token = CancellationToken(budget: .milliseconds(60))
        let start = ContinuousClock.now
        let refusal = #expect(throws: AdmissionRefusal.self) { try admission.admit(estimatedBytes: 10, cancellation: token) }
        #expect(refusal?.reason == .expired)
        let waited = ContinuousClock.now - start
        // Bounded correctness, not timing: it waited for the deadline and stopped soon after.
        #expect(waited >= .milliseconds(60) && waited < .seconds(2))
        #expect(admission.snapshot.queued == 0)
        holder.release()
    }

    @Test func cancellationEndsTheWait() throws {
        let admission = AdmissionController(workers: 1, queueLimit: 2, memoryBudgetBytes: 100)
        let holder = try admission.admit(estimatedBytes: 50)
        let token = CancellationToken()
        let waiter = try admission.enqueue(estimatedBytes: 10, cancellation: token)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.03) { token.cancel(.cancelled) }
        let refusal = #expect(throws: AdmissionRefusal.self) { try waiter.wait() }
        #expect(refusal?.reason == .cancelled)
        #expect(admission.snapshot.queued == 0)
        holder.release()
        // An already cancelled token is refused before it takes a place.
        let early = #expect(throws: AdmissionRefusal.self) { try admission.enqueue(estimatedBytes: 1, cancellation: token) }
        #expect(early?.reason == .cancelled)
    }

    @Test func everyPathReleasesExactlyOnce() throws {
        let admission = AdmissionController(workers: 2, queueLimit: 4, memoryBudgetBytes: 100)
        // Released twice: counted once.
        let twice = try admission.admit(estimatedBytes: 30)
        twice.release()
        twice.release()
        #expect(admission.snapshot.reservedBytes == 0 && admission.snapshot.inFlight == 0)
        // Dropped without release: freed with the ticket.
        do { _ = try admission.admit(estimatedBytes: 30) }
        #expect(admission.snapshot.reservedBytes == 0 && admission.snapshot.inFlight == 0)
        // Granted at once but never waited on, then dropped (an upload that failed).
        do { _ = try admission.enqueue(estimatedBytes: 40) }
        #expect(admission.snapshot.reservedBytes == 0 && admission.snapshot.inFlight == 0)
        // Queued, then dropped: leaves the queue and lets the next one in.
        let a = try admission.admit(estimatedBytes: 50)
        let b = try admission.admit(estimatedBytes: 50)
        do { _ = try admission.enqueue(estimatedBytes: 10) }
        let c = try admission.enqueue(estimatedBytes: 10)
        #expect(admission.snapshot.queued == 1)
        a.release()
        let cTicket = try c.wait()
        #expect(admission.snapshot.reservedBytes == 60)
        b.release()
        cTicket.release()
        #expect(admission.snapshot == AdmissionSnapshot(inFlight: 0, queued: 0, reservedBytes: 0, workers: 2, queueLimit: 4, memoryBudgetBytes: 100))
    }

    @Test func budgetAndWorkersHoldUnderConcurrency() throws {
        let workers = 3, budget = 100
        let admission = AdmissionController(workers: workers, queueLimit: 1000, memoryBudgetBytes: budget)
        struct Peak { var running = 0, bytes = 0, maxRunning = 0, maxBytes = 0, granted = 0 }
        let peak = Mutex(Peak())
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var rng = SystemRandomNumberGenerator()
            for _ in 0..<40 {
                let bytes = Int.random(in: 1...70, using: &rng)
                guard let ticket = try? admission.admit(estimatedBytes: bytes) else { continue }
                peak.withLock { p in
                    p.running += 1
                    p.bytes += bytes
                    p.granted += 1
                    p.maxRunning = max(p.maxRunning, p.running)
                    p.maxBytes = max(p.maxBytes, p.bytes)
                }
                Thread.sleep(forTimeInterval: Double.random(in: 0...0.0005, using: &rng))
                peak.withLock { p in
                    p.running -= 1
                    p.bytes -= bytes
                }
                ticket.release()
            }
        }
        let result = peak.withLock { $0 }
        #expect(result.granted == 8 * 40)
        #expect(result.maxRunning <= workers)
        #expect(result.maxBytes <= budget)
        #expect(admission.snapshot.inFlight == 0 && admission.snapshot.queued == 0 && admission.snapshot.reservedBytes == 0)
    }
}
