import CMicroHTTPD

/// The libmicrohttpd calls made on one connection, so the C API stays in this file and
/// `MHDDaemon.swift`. Only valid while libmicrohttpd keeps the connection (until its
/// completion callback); `resume` is the one call allowed from other threads.
struct MHDConnection: @unchecked Sendable {
    let raw: OpaquePointer

    /// Header fields (`MHD_HEADER_KIND`) or query parameters (`MHD_GET_ARGUMENT_KIND`), in order.
    func values(_ kind: MHD_ValueKind) -> [(name: String, value: String)] {
        let collector = Collector()
        let context = Unmanaged.passRetained(collector)
        defer { context.release() }
        _ = MHD_get_connection_values(raw, kind, { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<Collector>.fromOpaque(cls).takeUnretainedValue()
            collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }, context.toOpaque())
        return collector.pairs
    }

    /// What an empty body points at: libmicrohttpd wants a pointer even for no bytes (it reads
    /// none), and a pointer to a local would dangle.
    nonisolated(unsafe) private static let emptyBody = UnsafeMutableRawPointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

    /// Hands `response` to libmicrohttpd with `headers` (which include the server's own). Call
    /// on the connection's I/O thread from the access handler.
    @discardableResult
    func queue(_ response: HTTPResponse, headers: [(name: String, value: String)]) -> Bool {
        // MUST_COPY: libmicrohttpd keeps its own copy, so the Swift array's lifetime does not
        // have to be tied to the connection's (bodies are at most an image: one memcpy).
        let created: OpaquePointer? = response.body.withUnsafeBytes { raw in
            let base = raw.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? Self.emptyBody
            return MHD_create_response_from_buffer(raw.count, base, .RESPMEM_MUST_COPY)
        }
        guard let created else { return false }
        defer { MHD_destroy_response(created) }
        for (name, value) in headers {
            _ = MHD_add_response_header(created, name, value)
        }
        return MHD_queue_response(raw, UInt32(response.status), created) == MHD_Result.YES
    }

    /// Stops libmicrohttpd processing this connection until `resume` (access handler only).
    func suspend() { MHD_suspend_connection(raw) }

    /// Lets libmicrohttpd process the connection again; it calls the access handler once more,
    /// on its own thread. Safe from any thread; call exactly once per `suspend`.
    func resume() { MHD_resume_connection(raw) }

    /// The connection's socket, or -1.
    var socket: Int32 { splat_mhd_connection_fd(raw) }

    private final class Collector {
        var pairs: [(name: String, value: String)] = []
    }
}
