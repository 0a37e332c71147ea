import Foundation
import Testing
@testable import SplatServe

@Suite struct ConcurrentRequestsTests {
    /// One of the mixed requests: what to send and which statuses and error kinds are right.
    struct Case: Sendable {
        var method = "POST"
        var path: String
        var bodyBytes = 0
        var bodyPrefix = ""
        var chunked = false
        /// Acceptable outcomes; 503 busy is acceptable for any job route when the queue is full.
        var expected: [Int: String?]
    }

    static let cases: [Case] = [
        Case(path: "/test/echo", bodyBytes: 200_000, expected: [200: nil]),
        Case(path: "/test/hold?ms=150&bytes=300000000", expected: [200: nil]),
        Case(path: "/test/sniff", bodyBytes: 50_000, bodyPrefix: "PLY\n", expected: [200: nil]),
        Case(method: "GET", path: "/healthz", expected: [200: nil]),
        Case(method: "GET", path: "/nowhere", expected: [404: "not_found"]),
        Case(path: "/test/fail?kind=corrupt", expected: [422: "corrupt"]),
        Case(path: "/test/fail?kind=nonsense", expected: [400: "invalid_argument"]),
        Case(path: "/test/echo", bodyBytes: 3 << 20, expected: [413: "body_too_large"]),
        Case(path: "/test/echo", bodyBytes: 3 << 20, chunked: true, expected: [413: "body_too_large"]),
        Case(path: "/test/sniff", bodyBytes: 1 << 20, bodyPrefix: "HUGE", expected: [413: "too_large"]),
        Case(path: "/test/hold?bytes=5000000000", expected: [413: "too_large"]),
        Case(path: "/test/hold?ms=5000&timeout=0.2", expected: [504: "timeout"]),
        Case(method: "PUT", path: "/test/echo", expected: [405: "method_not_allowed"]),
        Case(path: "/test/hold?ms=50&bytes=600000000", expected: [200: nil]),
        Case(path: "/test/echo", bodyBytes: 1, expected: [200: nil]),
        Case(path: "/test/fail?kind=truncated", expected: [422: "truncated"]),
    ]

    @Test func sixteenMixedRequestsAreAllAnsweredWellFormed() throws {
        try TestServer.with(workers: 2, queue: 4, budget: 1 << 30, maxBody: 2 << 20) { t in
            let files = try Self.cases.map { c in c.bodyBytes > 0 ? try TestServer.bodyFile(c.bodyBytes, prefix: c.bodyPrefix) : nil }
            defer { for case let file? in files { try? FileManager.default.removeItem(at: file) } }
            let results = concurrently(Self.cases.count) { i in
                let c = Self.cases[i]
                return try? t.curl.request(c.method, c.path, bodyFile: files[i], headers: c.chunked ? ["Transfer-Encoding: chunked"] : [])
            }
            for (c, result) in zip(Self.cases, results) {
                guard let result = result ?? nil else {
                    Issue.record("no answer for \(c.method) \(c.path)")
                    continue
                }
                let busy = result.status == 503 && result.errorKind == "busy" && c.path.hasPrefix("/test/")
                #expect(c.expected.keys.contains(result.status) || busy, "\(c.method) \(c.path): \(result.status) \(result.text)")
                if let kind = c.expected[result.status] ?? nil {
                    #expect(result.errorKind == kind, "\(c.path): \(result.text)")
                }
                if result.status >= 400 {
                    #expect(result.headers["content-type"] == "application/json", "\(c.path)")
                    #expect(result.errorKind != nil, "\(c.path): error body \(result.text)")
                }
                #expect(result.headers["x-request-id"] != nil)
            }
            #expect(try t.curl.request("GET", "/healthz").status == 200)
            #expect(try t.waitForMetrics {
                $0["splatrender_memory_reserved_bytes"] == 0 && $0["splatrender_jobs_running"] == 0
                    && $0["splatrender_queue_depth"] == 0 && $0["splatrender_in_flight_requests"] == 1  // the scrape itself
            })
            #expect(t.log.all.count >= Self.cases.count)
        }
    }
}
