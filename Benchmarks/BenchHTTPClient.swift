import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The benchmark's HTTP client: one keep-alive connection to 127.0.0.1, `POST` with a
/// `Content-Length` body, the answer read by its `Content-Length`. Just enough HTTP/1.1 for the
/// server's own answers, and cheap, so the client takes little of the cores the server uses
/// (a curl process per request would cost milliseconds of CPU each).
final class BenchHTTPClient {
    private let port: Int
    private var fd: Int32 = -1

    init(port: Int) { self.port = port }

    deinit { disconnect() }

    /// Sends `body` to `path` and returns the status and body of the answer.
    func post(_ path: String, body: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        if fd < 0 { try connect() }
        let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
        try send(Array(head.utf8))
        try send(body)
        let (status, length, closes) = try readHead()
        let answer = try read(length)
        if closes { disconnect() }
        return (status, answer)
    }

    private func connect() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw BenchmarkError("socket: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var limit = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            disconnect()
            throw BenchmarkError("connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
    }

    private func disconnect() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchmarkError("send: \(String(cString: strerror(errno)))") }
            offset += n
        }
    }

    /// The status line and headers: status, `Content-Length`, whether the server closes.
    private func readHead() throws -> (Int, Int, Bool) {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !(head.count >= 4 && head.suffix(4) == [13, 10, 13, 10]) {
            let n = recv(fd, &byte, 1, 0)
            if n < 0 && errno == EINTR { continue }
            guard n == 1, head.count < 64 << 10 else { throw BenchmarkError("the server closed before answering") }
            head.append(byte)
        }
        let lines = String(decoding: head, as: UTF8.self).split(separator: "\r\n")
        guard let first = lines.first, let status = first.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw BenchmarkError("no status line in the answer")
        }
        var length = 0, closes = false
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0].lowercased() {
            case "content-length": length = Int(parts[1]) ?? 0
            case "connection": closes = parts[1].lowercased() == "close"
            default: break
            }
        }
        return (status, length, closes)
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = out.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw BenchmarkError("the server closed mid-answer") }
            offset += n
        }
        return out
    }
}
