import Foundation

/// The threads that run jobs, so libmicrohttpd's I/O threads never block on a decode or a
/// render. Tasks run in submission order. The server sizes it to the admission controller's
/// workers plus queue: every task submitted holds an admission place, so a task never waits
/// here behind others — it waits, if at all, in the admission queue, where order, deadlines
/// and the memory budget are enforced. Threads start on demand, up to the limit, and stay.
final class JobThreadPool: @unchecked Sendable {
    let limit: Int
    private let name: String
    // Everything below is guarded by `condition`.
    private let condition = NSCondition()
    private var tasks: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var threads = 0
    private var idle = 0
    private var stopping = false

    /// A pool of at most `limit` threads named `name-1`, `name-2`, ….
    init(limit: Int, name: String) {
        self.limit = max(1, limit)
        self.name = name
    }

    /// Queues `task`; returns false (and does not run it) once `shutdown` has begun.
    @discardableResult
    func submit(_ task: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard !stopping else { return false }
            tasks.append(task)
            // A woken idle thread counts as idle until it takes its task, so it may already be
            // spoken for: start a thread whenever the queued tasks outnumber the idle ones.
            // Counting `idle == 0` instead left the second of two quick submissions queued
            // behind the first. A job task waits for its admission place on its thread, so
            // the one behind could hold a place already granted to it while the one in front
            // waited for that place, until the request's deadline (a 504 after 30 s).
            if tasks.count - head > idle && threads < limit {
                threads += 1
                spawn(number: threads)
            }
            condition.signal()
            return true
        }
    }

    /// Lets queued tasks finish, then waits up to `timeout` for every thread to exit. A thread
    /// still inside a task then (a job ignoring its cancelled token) is left to finish alone,
    /// so a stuck job cannot hold up the process's exit.
    func shutdown(timeout: Duration) {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        condition.withLock {
            stopping = true
            condition.broadcast()
            while threads > 0 {
                if !condition.wait(until: deadline) { break }
            }
        }
    }

    private func spawn(number: Int) {
        let thread = Thread { [self] in runLoop() }
        thread.name = "\(name)-\(number)"
        // Jobs run the decoders and the renderer, whose frames are deep: ask for the usual
        // main-thread stack rather than a smaller secondary-thread default.
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func runLoop() {
        while let task = next() { task() }
        condition.withLock {
            threads -= 1
            condition.broadcast()
        }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.withLock {
            while head == tasks.count && !stopping {
                idle += 1
                condition.wait()
                idle -= 1
            }
            guard head < tasks.count else { return nil }
            let task = tasks[head]
            tasks[head] = nil
            head += 1
            // Compact once the consumed prefix dominates, so the array does not grow forever.
            if head > 64 && head * 2 > tasks.count {
                tasks.removeFirst(head)
                head = 0
            }
            return task
        }
    }
}
