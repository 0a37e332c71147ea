import SplatCore
import SplatService

/// A complete response: status, headers and body bytes, plus what the access log and the
/// stage metrics should record about the work behind it. Handlers build one; the server adds
/// `X-Request-Id`, `Content-Length`, `Server-Timing` (from `stageDurations`) and, while
/// draining, `Connection: close`.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields to send, in order (`Content-Length` is computed; do not set it).
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// Stage names and durations (`decode`, `prepare`, `render`, `encode`, …) for the
    /// `Server-Timing` header, the access log and `splatrender_stage_duration_seconds`.
    public var stageDurations: [(stage: String, duration: Duration)] = []
    /// Splats decoded for this response, for the log and `splatrender_splats_decoded_total`.
    public var splatCount: Int?
    /// The error kind of a failure response (set by the `error` constructors), for the log
    /// and `splatrender_rejected_total`.
    public var errorKind: String?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `text/plain` response.
    public static func text(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// An `application/json` response (one line, followed by a newline).
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array((value.serialized(pretty: false) + "\n").utf8))
    }

    /// Binary content such as an image.
    public static func bytes(_ body: [UInt8], contentType: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", contentType)], body: body)
    }

    /// The error body every failure uses:
    /// `{"error": {"kind": "...", "message": "...", "field": ..., "offset": ...}}`.
    public static func error(status: Int, kind: String, message: String, field: String? = nil, offset: Int? = nil) -> HTTPResponse {
        var response = json(.object([("error", .object([
            ("kind", .string(kind)),
            ("message", .string(message)),
            ("field", .optional(field) { .string($0) }),
            ("offset", .optional(offset) { .int($0) }),
        ]))]), status: status)
        response.errorKind = kind
        return response
    }

    /// A library error with the status its kind maps to (`ErrorStatus.forKind`) unless given.
    public static func error(_ error: SplatError, status: Int? = nil) -> HTTPResponse {
        Self.error(status: status ?? ErrorStatus.forKind(error.kind), kind: error.kind.rawValue,
                   message: error.message, field: error.field, offset: error.offset)
    }

    /// Admission refused the job: 413 when it can never fit, 503 with `Retry-After` when the
    /// server is busy or could not start it before its deadline.
    public static func refusal(_ refusal: AdmissionRefusal) -> HTTPResponse {
        switch refusal.reason {
        case .tooLarge:
            return error(status: 413, kind: SplatErrorKind.tooLarge.rawValue, message: refusal.message)
        case .busy, .expired:
            var response = error(status: 503, kind: ServeErrorKind.busy, message: refusal.message)
            response.headers.append(("Retry-After", String(ErrorStatus.retryAfterSeconds)))
            return response
        case .cancelled:
            return error(status: 503, kind: SplatErrorKind.cancelled.rawValue, message: refusal.message)
        }
    }

    /// The first header named `name`, compared without case.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}
