import Foundation
import SplatService
#if canImport(Glibc)
import Glibc
#endif

/// One request's line in the access log.
public struct AccessLogEntry: Sendable {
    /// When the request ended (response sent, refused, or the connection lost).
    public var time: Date
    public var requestID: String
    public var method: String
    /// The matched route, or `unmatched`.
    public var route: String
    /// The status sent, or 499 when the client went away before the response was complete.
    public var status: Int
    public var bytesIn: Int
    public var bytesOut: Int
    public var duration: Duration
    /// Queue wait and the job's stages, in order.
    public var stages: [(stage: String, duration: Duration)]
    public var splatCount: Int?
    public var errorKind: String?

    /// The line as JSON: time, request_id, method, route, status, bytes_in, bytes_out,
    /// duration_ms, stages_ms {stage: ms}, splats, error.
    public var json: JSONValue {
        .object([
            ("time", .string(Self.timestamp(time))),
            ("request_id", .string(requestID)),
            ("method", .string(method)),
            ("route", .string(route)),
            ("status", .int(status)),
            ("bytes_in", .int(bytesIn)),
            ("bytes_out", .int(bytesOut)),
            ("duration_ms", .double(Self.milliseconds(duration))),
            ("stages_ms", .object(stages.map { ($0.stage, .double(Self.milliseconds($0.duration))) })),
            ("splats", .optional(splatCount) { .int($0) }),
            ("error", .optional(errorKind) { .string($0) }),
        ])
    }

    /// Milliseconds rounded to microseconds, so lines stay short.
    static func milliseconds(_ d: Duration) -> Double {
        (StageTimings.milliseconds(d) * 1000).rounded() / 1000
    }

    /// RFC 3339 in UTC with milliseconds, e.g. `2025-01-31T12:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ v: Int32, _ width: Int = 2) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T"
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).\(pad(Int32(millis), 3))Z"
    }
}

/// Where access log lines go. Called on libmicrohttpd's threads once per request: must be
/// quick and thread-safe.
public protocol AccessLogSink: Sendable {
    func record(_ entry: AccessLogEntry)
}

/// Writes each entry as one JSON line to standard error with a single `write(2)`, so lines
/// from concurrent requests never interleave.
public struct StandardErrorAccessLog: AccessLogSink {
    public init() {}

    public func record(_ entry: AccessLogEntry) {
        let line = Array((entry.json.serialized(pretty: false) + "\n").utf8)
        line.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(STDERR_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}
