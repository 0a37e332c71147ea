import Foundation
import Synchronization
import SplatCore
import SplatService
import SplatServe

/// Routes whose work is real, for the server tests: they hold admission reservations, stream
/// and checksum bodies, sniff and refuse, and stop when their token says so.
enum TestRoutes {
    static func router() -> Router {
        var router = Router()
        router.postJob("/test/hold") { request in .start(HoldJob(request: request), timeout: seconds(request.queryValue("timeout"))) }
        router.postJob("/test/echo") { _ in .start(EchoJob()) }
        router.postJob("/test/sniff") { _ in .start(SniffJob()) }
        router.postJob("/test/fail") { request in
            guard let kind = request.queryValue("kind").flatMap(SplatErrorKind.init(rawValue:)) else {
                return .refuse(.error(SplatError(.invalidArgument, "kind= must name an error kind", field: "kind")))
            }
            return .start(FailJob(kind: kind))
        }
        return router
    }

    static func seconds(_ text: String?) -> Duration? {
        text.flatMap(Double.init).map { .milliseconds(Int64($0 * 1000)) }
    }
}

/// Reserves `bytes=` (at the first piece of body, or at its end when there is none) and holds
/// its worker for `ms=` milliseconds in 5 ms steps, stopping early when cancelled. With
/// `gate=name` it holds until the test opens that gate (`ms=` is then a ceiling, 30 s unless
/// given): a test that must see a job still running after a few requests of its own cannot
/// count on a time, since a loaded machine can spend any time between two of its requests.
final class HoldJob: JobHandler {
    let bytes: Int
    let milliseconds: Int
    let gate: String?
    private var admitted = false

    init(request: HTTPRequest) {
        bytes = request.queryValue("bytes").flatMap(Int.init) ?? 0
        gate = request.queryValue("gate")
        milliseconds = request.queryValue("ms").flatMap(Int.init) ?? (gate == nil ? 0 : 30_000)
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> BodyVerdict {
        guard !admitted else { return .proceed }
        admitted = true
        return .admit(estimatedBytes: bytes)
    }

    func bodyComplete() -> BodyVerdict { .admit(estimatedBytes: bytes) }

    func run(_ context: JobContext) -> HTTPResponse {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .milliseconds(milliseconds) {
            if let gate, HoldGate.isOpen(gate) { break }
            do throws(SplatError) {
                try context.cancellation.check("while holding")
            } catch {
                return .error(error)
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        var response = HTTPResponse.text("held \(context.ticket.reservedBytes)\n")
        response.stageDurations = [("render", ContinuousClock.now - start)]
        response.splatCount = 1
        return response
    }
}

/// Named gates that `/test/hold?gate=` jobs wait on. Names are unique per test (tests run in
/// parallel in one process), so a gate is opened once and never closed.
enum HoldGate {
    private static let opened = Mutex<Set<String>>([])

    /// A fresh gate name.
    static func make() -> String { "g" + UUID().uuidString.replacingOccurrences(of: "-", with: "") }

    static func open(_ name: String) { _ = opened.withLock { $0.insert(name) } }

    static func isOpen(_ name: String) -> Bool { opened.withLock { $0.contains(name) } }
}

/// Streams the body through a CRC-32 without keeping it, and answers its length and checksum.
final class EchoJob: JobHandler {
    private var crc = CRC32()
    private var length = 0

    func receive(_ chunk: UnsafeRawBufferPointer) -> BodyVerdict {
        crc.update(chunk)
        length += chunk.count
        return .proceed
    }

    func run(_ context: JobContext) -> HTTPResponse {
        .json(.object([("length", .int(length)), ("crc32", .int(Int(crc.value)))]))
    }
}

/// Reads the first 4 bytes: `HUGE` is refused at once with 413 `too_large` (as a scene header
/// over the ceiling would be); anything else is gathered into a capped buffer and counted.
final class SniffJob: JobHandler {
    private let buffer = RequestBodyBuffer(expectedBytes: nil, capacityLimit: 64 << 20)

    func receive(_ chunk: UnsafeRawBufferPointer) -> BodyVerdict {
        let before = buffer.count
        guard buffer.append(chunk) else {
            return .refuse(.error(SplatError(.tooLarge, "the body passed the buffer's cap")))
        }
        if before < 4, buffer.count >= 4, Array(buffer.bytes.prefix(4)) == Array("HUGE".utf8) {
            return .refuse(.error(SplatError(.tooLarge, "the header declares a scene over the ceiling", offset: 0, field: "count")))
        }
        return .proceed
    }

    func run(_ context: JobContext) -> HTTPResponse {
        .json(.object([("length", .int(buffer.count))]))
    }
}

/// Fails with a library error of the kind asked for, as a decoder or renderer would.
final class FailJob: JobHandler {
    let kind: SplatErrorKind
    init(kind: SplatErrorKind) { self.kind = kind }

    func run(_ context: JobContext) -> HTTPResponse {
        .error(SplatError(kind, "failed on purpose", offset: 12, field: "test"))
    }
}

/// CRC-32 (IEEE), the checksum zlib and PNG use.
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        for b in bytes { state = Self.table[Int((state ^ UInt32(b)) & 0xFF)] ^ (state >> 8) }
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }

    static func of(_ data: Data) -> UInt32 {
        var crc = CRC32()
        data.withUnsafeBytes { crc.update($0) }
        return crc.value
    }
}
