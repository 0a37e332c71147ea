import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection to the test server driven byte by byte: for clients that trickle, hang up
/// mid-upload, or only need to know whether a connection is accepted. It reads responses only
/// as far as a test needs (the status line, or everything until the server closes).
/// Used by one thread at a time (tests hand a client from one thread to another only through a join).
final class RawHTTPClient: @unchecked Sendable {
    private(set) var fd: Int32

    enum Failure: Error { case socket(String) }

    /// Connects to 127.0.0.1:`port`; throws when the connection is refused. Every read gives
    /// up after `timeout` seconds.
    init(port: Int, timeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure.socket("connect: \(String(cString: strerror(code)))")
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends all of `bytes`; false when the connection broke.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads until the server closes the connection, `limit` bytes arrive, or a read times out.
    func readAll(limit: Int = 1 << 20) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while out.count < limit {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return out
    }

    /// Reads one response whose length is given by `Content-Length`, leaving the connection
    /// open for the next request; nil when the connection closed or timed out first.
    func readResponse() -> RawHTTPResponse? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 16 << 10, bytes.suffix(4) != [13, 10, 13, 10] {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            bytes.append(byte)
        }
        guard let length = RawHTTPResponse(bytes).headers["content-length"].flatMap(Int.init) else { return nil }
        var body = [UInt8](repeating: 0, count: length)
        var received = 0
        while received < length {
            let n = body.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + received, length - received, 0) }
            guard n > 0 else { return nil }
            received += n
        }
        return RawHTTPResponse(bytes + body)
    }

    /// Reads until the end of the response head and returns its status code (nil if none came).
    func readStatus() -> Int? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 16 << 10 {
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            head.append(byte)
            if head.suffix(4) == [13, 10, 13, 10] { break }
        }
        let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }

    /// Closes the connection: politely (FIN), or with a reset (RST) as a crashed client would.
    func hangUp(reset: Bool = false) {
        guard fd >= 0 else { return }
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        close(fd)
        fd = -1
    }
}

/// One response as a `RawHTTPClient` read it: status, headers (names lowercased) and the body,
/// whether sent with a length or in chunks.
struct RawHTTPResponse {
    let head: String
    let status: Int?
    let headers: [String: String]
    let body: [UInt8]

    init(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        let end = (0..<max(0, bytes.count - 3)).first { Array(bytes[$0..<$0 + 4]) == separator }
        head = String(decoding: bytes[..<(end ?? bytes.count)], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = (lines.first ?? "").split(separator: " ")
        status = parts.count >= 2 ? Int(parts[1]) : nil
        headers = Self.fields(lines.dropFirst())
        let rest = end.map { Array(bytes[($0 + 4)...]) } ?? []
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = Self.dechunk(rest)
        } else if let length = headers["content-length"].flatMap(Int.init) {
            body = Array(rest.prefix(length))
        } else {
            body = rest
        }
    }

    /// Header lines as a map from lowercased name to trimmed value; lines without a colon (the
    /// status line) are skipped. Shared with `CurlClient`, which reads curl's header dump.
    static func fields<Lines: Sequence>(_ lines: Lines) -> [String: String] where Lines.Element: StringProtocol {
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = (i..<max(i, bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }),
                  let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self).split(separator: ";")[0], radix: 16),
                  size > 0, lineEnd + 2 + size <= bytes.count else { break }
            out += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            i = lineEnd + 4 + size
        }
        return out
    }
}
