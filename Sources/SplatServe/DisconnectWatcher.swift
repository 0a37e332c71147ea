import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices clients that hang up while their job runs. libmicrohttpd stops watching a
/// suspended connection's socket (its manual says disconnects go undetected while suspended),
/// so one thread here polls those sockets for a peer hang-up (`POLLRDHUP`, `POLLHUP`,
/// `POLLERR`) and tells the exchange, which cancels the job's token: its worker and
/// reservation are freed at the job's next check instead of after a render nobody will read.
///
/// A socket is watched from suspension until just before the connection is resumed, so the
/// descriptor is open for as long as it is watched. The poll thread acts only on watches still
/// registered when poll returns, so a stale result for a reused descriptor number is ignored.
final class DisconnectWatcher: Sendable {
    private struct Watch: Sendable {
        let fd: Int32
        let onHangUp: @Sendable () -> Void
    }
    private struct State {
        var watches: [UInt64: Watch] = [:]
        var nextID: UInt64 = 1
        var stopped = false
    }
    private let state = Mutex(State())
    /// Written to wake the poll thread when the set changes or on stop: [read end, write end].
    private let wake: (read: Int32, write: Int32)
    private let exited = DispatchSemaphore(value: 0)
    /// `POLLRDHUP` from <poll.h>: the peer shut its write side. Glibc declares it only under
    /// `_GNU_SOURCE`, so Swift does not import it.
    private static let peerHangUp: Int16 = 0x2000

    /// Starts the poll thread; nil when no pipe can be made (the server then runs without
    /// early disconnect detection, and deadlines still bound every job).
    init?() {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wake = (fds[0], fds[1])
        let thread = Thread { [self] in
            run()
            exited.signal()
        }
        thread.name = "splat-disconnect-watch"
        thread.start()
    }

    /// Starts watching `fd`; `onHangUp` runs once, on the watcher's thread, if the peer hangs
    /// up first. Returns the id to pass to `unwatch`.
    func watch(fd: Int32, onHangUp: @escaping @Sendable () -> Void) -> UInt64 {
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.watches[id] = Watch(fd: fd, onHangUp: onHangUp)
            return id
        }
        poke()
        return id
    }

    /// Stops watching; call before the descriptor can be closed (before resuming).
    func unwatch(_ id: UInt64) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
        // No wake needed: a poll still holding the descriptor ignores it when it returns.
    }

    /// Stops and joins the poll thread, then closes the pipe.
    func stop() {
        let first = state.withLock { s in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        poke()
        exited.wait()
        close(wake.read)
        close(wake.write)
    }

    private func poke() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func run() {
        var drain = [UInt8](repeating: 0, count: 64)
        while true {
            let (stopped, snapshot) = state.withLock { ($0.stopped, $0.watches.map { ($0.key, $0.value) }) }
            if stopped { return }
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            for (_, watch) in snapshot {
                fds.append(pollfd(fd: watch.fd, events: Self.peerHangUp, revents: 0))
            }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 { if errno == EINTR { continue } else { return } }
            if fds[0].revents != 0 { _ = read(wake.read, &drain, drain.count) }
            let hungUp = Self.peerHangUp | Int16(POLLHUP | POLLERR | POLLNVAL)
            for (i, (id, _)) in snapshot.enumerated() where fds[i + 1].revents & hungUp != 0 {
                let gone = state.withLock { $0.watches.removeValue(forKey: id) }
                gone?.onHangUp()
            }
        }
    }
}
