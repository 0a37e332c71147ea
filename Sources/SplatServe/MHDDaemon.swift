import CMicroHTTPD
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// A running libmicrohttpd daemon: started with our options, quiesced, stopped. The I/O model:
/// a pool of internal threads, each with its own epoll set; suspend/resume enabled so a
/// connection can wait for its job without holding a thread.
final class MHDDaemon: @unchecked Sendable {
    private let raw: OpaquePointer
    /// The listening socket after `quiesce`; closed after stop, as libmicrohttpd requires.
    private var quiescedSocket: Int32 = -1
    /// The port actually bound (the one asked for, or the system's pick for 0).
    let port: Int

    struct Options {
        var listen: ListenAddress
        var ioThreads: Int
        var connectionLimit: Int
        var idleTimeoutSeconds: Int
        var listenBacklog: Int
    }

    /// Binds and starts. `context` is passed back to `handler` and `completed` unretained: the
    /// caller keeps it alive until `stop` returns.
    init(options: Options, handler: MHD_AccessHandlerCallback, completed: MHD_RequestCompletedCallback,
         context: UnsafeMutableRawPointer) throws(SplatError) {
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        if options.listen.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let port = UInt16(clamping: options.listen.port)
        let parsed: Bool
        if options.listen.isIPv6 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            parsed = inet_pton(AF_INET6, options.listen.host, &v6.sin6_addr) == 1
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            parsed = inet_pton(AF_INET, options.listen.host, &v4.sin_addr) == 1
        }
        guard parsed else {
            throw SplatError(.invalidArgument, "cannot listen on \(options.listen): the host is not a numeric IPv4 or IPv6 address", field: "listen")
        }
        let started: OpaquePointer? = withUnsafeMutablePointer(to: &v4) { v4Pointer in
            withUnsafeMutablePointer(to: &v6) { v6Pointer in
                let address = options.listen.isIPv6 ? UnsafeMutableRawPointer(v6Pointer) : UnsafeMutableRawPointer(v4Pointer)
                var items: [MHD_OptionItem] = [
                    splat_mhd_option(.SOCK_ADDR, 0, address),
                    splat_mhd_option(.CONNECTION_LIMIT, max(1, options.connectionLimit), nil),
                    // Idle timeout: a connection that sends nothing for this long is closed
                    // (slowloris); suspended connections (jobs running) are exempt.
                    splat_mhd_option(.CONNECTION_TIMEOUT, max(1, options.idleTimeoutSeconds), nil),
                    splat_mhd_option(.LISTEN_BACKLOG_SIZE, max(1, options.listenBacklog), nil),
                    splat_mhd_option_completed(completed, context),
                ]
                if options.ioThreads > 1 {
                    items.append(splat_mhd_option(.THREAD_POOL_SIZE, options.ioThreads, nil))
                }
                items.append(splat_mhd_option(.END, 0, nil))
                return items.withUnsafeBufferPointer { list in
                    splat_mhd_start(flags, port, handler, context, list.baseAddress)
                }
            }
        }
        guard let started else {
            let reason = errno != 0 ? String(cString: strerror(errno)) : "libmicrohttpd could not start"
            throw SplatError(.io, "cannot listen on \(options.listen): \(reason)", field: "listen")
        }
        raw = started
        self.port = Int(splat_mhd_bound_port(started))
    }

    /// Stops accepting: new connections are refused at once, open ones carry on. The socket is
    /// shut down rather than closed because libmicrohttpd's threads may still hold it; a shut
    /// listening socket on Linux leaves the listen state, so connects get a reset instead of
    /// waiting in a backlog nobody accepts from.
    func quiesce() {
        guard quiescedSocket < 0 else { return }
        let fd = MHD_quiesce_daemon(raw)
        guard fd >= 0 else { return }
        quiescedSocket = fd
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Closes every connection and joins the I/O threads. No connection may be suspended.
    func stop() {
        MHD_stop_daemon(raw)
        if quiescedSocket >= 0 {
            close(quiescedSocket)
            quiescedSocket = -1
        }
    }
}
