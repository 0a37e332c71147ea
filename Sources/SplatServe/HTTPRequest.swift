import Foundation

/// One request as the handlers see it: method, path, query parameters and headers (decoded by
/// libmicrohttpd), and the id that ties its response and log line together. Captured once when
/// the headers arrive; the body is streamed separately (see `JobHandler`).
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `POST`.
    public let method: String
    /// The path without the query, percent-decoded, e.g. `/v1/render`.
    public let path: String
    /// Query parameters in the order sent (a name may repeat).
    public let query: [(name: String, value: String)]
    /// Header fields in the order sent.
    public let headers: [(name: String, value: String)]
    /// `X-Request-Id` as sent when it is usable, otherwise one generated here.
    public let requestID: String
    /// When the headers arrived; deadlines count from here.
    public let receivedAt: ContinuousClock.Instant

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [(name: String, value: String)] = [], requestID: String, receivedAt: ContinuousClock.Instant = .now) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.requestID = requestID
        self.receivedAt = receivedAt
    }

    /// The first header named `name`, compared without case.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The last value of query parameter `name` (a later repeat overrides an earlier one, as
    /// a repeated command-line option does).
    public func queryValue(_ name: String) -> String? {
        query.last { $0.name == name }?.value
    }

    /// `Content-Length` when sent and valid.
    public var contentLength: Int? {
        header("Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// Whether a body follows the headers (a positive length or chunked transfer coding).
    public var hasBody: Bool {
        if let length = contentLength { return length > 0 }
        return header("Transfer-Encoding")?.lowercased().contains("chunked") ?? false
    }
}
