import Dispatch
import SplatCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into cancellation: once installed, either signal cancels `token`
/// with reason `interrupted`, so every job under it stops at its next check, rolls back its
/// outputs and reports `interrupted`; a second signal of the same kind exits at once (the
/// operator insists). SIGPIPE is ignored, so a closed pipe is a write error (EPIPE) the caller
/// reports, and so is SIGXFSZ (a file-size limit gives EFBIG).
public enum SignalCancellation {
    /// The root token every job of the process runs under.
    public static let token = CancellationToken()

    private static let received = Atomic<Int32>(0)
    private static let sources = Mutex<[DispatchSourceSignal]>([])

    /// The signal that cancelled `token` (SIGINT or SIGTERM), 0 if none.
    public static var lastSignal: Int32 { received.load(ordering: .relaxed) }

    /// Installs the handlers (once per process; later calls do nothing).
    public static func install() {
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        sources.withLock { sources in
            guard sources.isEmpty else { return }
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { @Sendable in
                    if received.load(ordering: .relaxed) == number { _exit(128 + number) }
                    received.store(number, ordering: .relaxed)
                    token.cancel(.interrupted)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
