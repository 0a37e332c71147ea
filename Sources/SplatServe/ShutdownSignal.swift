import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The signals that start a graceful shutdown, for the `serve` command:
///
/// ```swift
/// let shutdown = ShutdownSignal()             // before start, so an early SIGTERM is not fatal
/// try server.start()
/// _ = shutdown.wait()                         // SIGTERM or SIGINT
/// _ = server.drain(grace: grace)              // then exit(0)
/// ```
///
/// Creating one replaces the signals' default action (terminate at once) for the rest of the
/// process with a handler that writes the signal's number to a pipe (the self-pipe pattern:
/// `write` is async-signal-safe, and it works whichever thread the kernel picks, which a
/// `sigwait` or a dispatch signal source on Linux needs every thread's mask for). A second
/// SIGTERM during the drain is absorbed the same way instead of killing the process.
public final class ShutdownSignal: Sendable {
    private let first = Mutex<Int32?>(nil)
    private let readEnd: Int32

    /// Starts catching `signals` now.
    public init(signals: [Int32] = [SIGTERM, SIGINT]) {
        readEnd = SignalPipe.shared.read
        // A client gone mid-response must be a write error (EPIPE), not the end of the server.
        signal(SIGPIPE, SIG_IGN)
        for number in signals { signal(number, SignalPipe.handler) }
    }

    /// Blocks until one of the signals arrives and returns the first one that did.
    public func wait() -> Int32 {
        while true {
            if let seen = received { return seen }
            var ready = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            _ = poll(&ready, 1, -1)
        }
    }

    /// The first signal seen so far, without waiting.
    public var received: Int32? {
        first.withLock { seen in
            var bytes = [UInt8](repeating: 0, count: 16)
            while true {
                let n = read(readEnd, &bytes, bytes.count)
                if n <= 0 { break }
                if seen == nil { seen = Int32(bytes[0]) }
            }
            return seen
        }
    }
}

/// The process's one signal pipe. The handler finds the write end in an atomic global that
/// is set before any handler is installed, so it only ever loads a ready value.
private struct SignalPipe: Sendable {
    let read: Int32

    static let shared: SignalPipe = {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        signalPipeWriteEnd.store(fds[1], ordering: .releasing)
        return SignalPipe(read: fds[0])
    }()

    static let handler: @convention(c) (Int32) -> Void = { number in
        var byte = UInt8(truncatingIfNeeded: number)
        _ = Glibc.write(signalPipeWriteEnd.load(ordering: .relaxed), &byte, 1)
    }
}

/// Written once, before any handler is installed; a lock-free atomic load is async-signal-safe.
private let signalPipeWriteEnd = Atomic<Int32>(-1)
