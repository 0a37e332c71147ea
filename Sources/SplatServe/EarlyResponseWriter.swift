import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Sends a refusal while the request body is still arriving. libmicrohttpd (0.9.75, and 1.0
/// alike) accepts a response only before the body is read or after all of it has been
/// (`MHD_queue_response` requires the HEADERS_PROCESSED or FULL_REQ_RECEIVED state), so a
/// refusal decided from the first bytes — a scene header over the ceiling, a chunked body past
/// the cap, a deadline passed mid-upload — could otherwise only be sent after the client had
/// uploaded everything. Here the small, fixed-form response (status line, our headers,
/// `Connection: close`, the JSON body) goes straight onto the connection's socket with one
/// `send`, and the write side is shut down; libmicrohttpd keeps reading and we drop what
/// arrives until the client closes, so the client reads the whole response instead of a
/// reset. This only serialises; all parsing stays in libmicrohttpd.
enum EarlyResponseWriter {
    enum Outcome {
        /// The whole response went out and the write side is shut.
        case sent
        /// Nothing was written: answer through libmicrohttpd once the upload ends.
        case unsent
        /// Part of it was written: the connection can only be closed.
        case broken
    }

    /// Writes `response` with `headers` to `fd`.
    static func send(_ response: HTTPResponse, headers: [(name: String, value: String)], fd: Int32) -> Outcome {
        guard fd >= 0 else { return .unsent }
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for (name, value) in headers where !isFraming(name) {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        // Nothing of this request's response has been written, so the socket's send buffer
        // (tens of KiB) is empty and a refusal of well under 1 KiB goes out in one call.
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        guard sent == bytes.count else { return sent > 0 ? .broken : .unsent }
        shutdown(fd, Int32(SHUT_WR))
        return .sent
    }

    /// Headers this writer sets itself.
    private static func isFraming(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "content-length" || lower == "connection" || lower == "transfer-encoding"
    }
}
