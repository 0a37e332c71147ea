import Foundation
import Testing
@testable import SplatServe

@Suite struct OperationalRoutesTests {
    @Test func healthReadinessAndMetricsAnswer() throws {
        try TestServer.with { t in
            #expect(t.port > 0)
            let health = try t.curl.request("GET", "/healthz")
            #expect(health.status == 200)
            #expect(health.text == "ok\n")
            #expect(health.headers["x-request-id"]?.count == 32)
            let ready = try t.curl.request("GET", "/readyz")
            #expect(ready.status == 200)
            let metrics = try t.curl.request("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            let samples = MetricsText.samples(metrics.text)
            #expect(samples["splatrender_memory_budget_bytes"] == 1_073_741_824)
            #expect(samples["splatrender_memory_reserved_bytes"] == 0)
            #expect(samples["splatrender_queue_depth"] == 0)
            #expect((samples["process_resident_memory_bytes"] ?? 0) > 1_048_576)
            #expect((samples["process_cpu_seconds_total"] ?? -1) >= 0)
            #expect(samples[#"splatrender_requests_total{route="/healthz",code="200"}"#] == 1)
            #expect(samples[#"splatrender_rejected_total{reason="busy"}"#] == 0)
            #expect(samples[#"splatrender_stage_duration_seconds_count{stage="decode"}"#] == 0)
        }
    }
}
