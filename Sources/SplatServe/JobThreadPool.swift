import Foundation

/// The threads that run jobs, so libmicrohttpd's I/O threads never block on a decode or a
/// render. Tasks run in submission order. The server sizes it to the admission controller's
/// workers plus queue: every task submitted holds an admission place, so a task never waits
/// here behind others — it waits, if at all, in the admission queue, where order, deadlines
/// and the memory budget are enforced.
final class JobThreadPool: @unchecked Sendable {
    // `tasks`, `head` and `stopping` are guarded by `condition`.
    private let condition = NSCondition()
    private var tasks: [(@Sendable () -> Void)?] = []
    private var head = 0
    private var stopping = false
    private let exited = DispatchGroup()

    /// Starts `threads` threads named `name-1`, `name-2`, ….
    init(threads: Int, name: String) {
        for i in 1...max(1, threads) {
            exited.enter()
            let thread = Thread { [self] in
                runLoop()
                exited.leave()
            }
            thread.name = "\(name)-\(i)"
            // Jobs run the decoders and the renderer, whose frames are deep: ask for the
            // usual main-thread stack rather than a smaller secondary-thread default.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Queues `task`; returns false (and does not run it) once `shutdown` has begun.
    @discardableResult
    func submit(_ task: @escaping @Sendable () -> Void) -> Bool {
        condition.withLock {
            guard !stopping else { return false }
            tasks.append(task)
            condition.signal()
            return true
        }
    }

    /// Lets queued tasks finish, then stops and joins every thread.
    func shutdown() {
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        exited.wait()
    }

    private func runLoop() {
        while let task = next() { task() }
    }

    private func next() -> (@Sendable () -> Void)? {
        condition.withLock {
            while head == tasks.count && !stopping { condition.wait() }
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
