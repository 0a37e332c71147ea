import Foundation
import Testing
import SplatCore
@testable import SplatServe

@Suite struct RoutingAndErrorsTests {
    @Test func unknownRouteAndWrongMethodAnswerWithTheErrorBody() throws {
        try TestServer.with { t in
            let missing = try t.curl.request("GET", "/nowhere")
            #expect(missing.status == 404)
            #expect(missing.errorKind == "not_found")
            #expect(missing.headers["content-type"] == "application/json")
            let error = missing.json?["error"] as? [String: Any]
            #expect(error?["message"] is String)
            #expect(error?["field"] is NSNull && error?["offset"] is NSNull)

            let wrong = try t.curl.request("DELETE", "/healthz")
            #expect(wrong.status == 405)
            #expect(wrong.errorKind == "method_not_allowed")
            #expect(wrong.headers["allow"] == "GET, HEAD")
            let getJob = try t.curl.request("GET", "/test/echo")
            #expect(getJob.status == 405)
            #expect(getJob.headers["allow"] == "POST")
        }
    }

    @Test func requestIDsAreEchoedOrGenerated() throws {
        try TestServer.with { t in
            let echoed = try t.curl.request("GET", "/healthz", headers: ["X-Request-Id: trace-42"])
            #expect(echoed.headers["x-request-id"] == "trace-42")
            let replaced = try t.curl.request("GET", "/healthz", headers: ["X-Request-Id: " + String(repeating: "x", count: 200)])
            #expect(replaced.headers["x-request-id"]?.count == 32)
            let line = t.log.all.first { $0.requestID == "trace-42" }
            #expect(line?.status == 200 && line?.route == "/healthz" && line?.method == "GET")
        }
    }

    @Test(arguments: [
        ("truncated", 422), ("bad_magic", 422), ("non_finite", 422), ("too_large", 413),
        ("timeout", 504), ("invalid_argument", 400), ("io", 500), ("cancelled", 503), ("blank", 422),
    ])
    func libraryErrorsMapToTheirStatus(kind: String, status: Int) throws {
        try TestServer.with { t in
            let result = try t.curl.request("POST", "/test/fail?kind=\(kind)")
            #expect(result.status == status)
            #expect(result.errorKind == kind)
            let error = result.json?["error"] as? [String: Any]
            #expect(error?["field"] as? String == "test")
            #expect(error?["offset"] as? Int == 12)
        }
    }

    /// Requests refused before a job starts: a factory's refusal, an estimate over the budget.
    @Test(arguments: [
        (budget: TestServer.defaultBudget, path: "/test/fail?kind=nonsense", status: 400, kind: "invalid_argument", reason: "bad_request"),
        (budget: 1000, path: "/test/hold?bytes=1001", status: 413, kind: "too_large", reason: "too_large"),
    ])
    func refusalsAnswerTheirStatusAndAreCounted(budget: Int, path: String, status: Int, kind: String, reason: String) throws {
        try TestServer.with(budget: budget) { t in
            let result = try t.curl.request("POST", path)
            #expect(result.status == status)
            #expect(result.errorKind == kind)
            #expect(try t.waitForMetrics { $0[#"splatrender_rejected_total{reason="\#(reason)"}"#] == 1 })
        }
    }

    @Test func busyQueueAndReadinessAnswer503() throws {
        try TestServer.with(workers: 1, queue: 1) { t in
            let gate = HoldGate.make()
            defer { HoldGate.open(gate) }
            let running = Pending { try? t.curl.request("POST", "/test/hold?gate=\(gate)") }
            #expect(try t.waitForMetrics { $0["splatrender_jobs_running"] == 1 })
            let queued = Pending { try? t.curl.request("POST", "/test/hold?ms=10") }
            #expect(try t.waitForMetrics { $0["splatrender_queue_depth"] == 1 })

            let ready = try t.curl.request("GET", "/readyz")
            #expect(ready.status == 503)
            let refused = try t.curl.request("POST", "/test/hold")
            #expect(refused.status == 503)
            #expect(refused.errorKind == "busy")
            #expect(refused.headers["retry-after"] == "1")

            HoldGate.open(gate)
            #expect(running.wait()??.status == 200)
            #expect(queued.wait()??.status == 200)
            #expect(try t.curl.request("GET", "/readyz").status == 200)
            let samples = try t.scrape()
            #expect(samples[#"splatrender_rejected_total{reason="busy"}"#] == 1)
            #expect(samples[#"splatrender_stage_duration_seconds_count{stage="queue"}"#] == 2)
            #expect(samples[#"splatrender_stage_duration_seconds_count{stage="render"}"#] == 2)
            #expect(samples["splatrender_splats_decoded_total"] == 2)
        }
    }

    @Test func aDeadlinePassedInTheQueueIs503() throws {
        try TestServer.with(workers: 1, queue: 2) { t in
            let gate = HoldGate.make()
            defer { HoldGate.open(gate) }
            let running = Pending { try? t.curl.request("POST", "/test/hold?gate=\(gate)") }
            #expect(try t.waitForMetrics { $0["splatrender_jobs_running"] == 1 })
            let late = try t.curl.request("POST", "/test/hold?timeout=0.2")
            #expect(late.status == 503)
            #expect(late.errorKind == "busy")
            #expect(late.headers["retry-after"] == "1")
            HoldGate.open(gate)
            #expect(running.wait()??.status == 200)
        }
    }

    @Test func aDeadlineInsideTheJobIs504InTime() throws {
        try TestServer.with { t in
            let result = try t.curl.request("POST", "/test/hold?ms=5000&timeout=0.3", headers: ["X-Request-Id: deadline"])
            #expect(result.status == 504)
            #expect(result.errorKind == "timeout")
            // The issue's bound, measured by the server from headers in to response out:
            // deadline + max(100 ms, 10 %). The job checks its token every 5 ms.
            let line = t.log.all.first { $0.requestID == "deadline" }
            #expect(line != nil)
            if let line { #expect(line.duration < .milliseconds(400), "answered after \(line.duration)") }
            #expect(try t.waitForMetrics { $0[#"splatrender_rejected_total{reason="timeout"}"#] == 1 })
        }
    }
}
