import Foundation
import Testing
@testable import SplatServe

@Suite struct MetricsRegistryTests {
    @Test func expositionFollowsTextFormat004() {
        let registry = MetricsRegistry()
        let requests = registry.counter("demo_requests_total", help: "Requests.\nSecond line with a \\ backslash.", labels: ["route", "code"])
        requests.labels("/v1/render", "200").increment()
        requests.labels("/v1/render", "200").increment(by: 2)
        requests.labels("/a\"b\\c\nd", "404").increment()
        requests.labels("/v1/render", "200").increment(by: -5)  // ignored: counters only go up
        let depth = registry.gauge("demo_depth", help: "Depth.")
        depth.unlabelled.set(3)
        depth.unlabelled.add(-1.5)
        registry.sampledGauge("demo_sampled", help: "Sampled.") { 42 }
        let latency = registry.histogram("demo_seconds", help: "Latency.", labels: ["stage"], buckets: [0.1, 1])
        let render = latency.labels("render")
        render.observe(0.05)
        render.observe(0.1)
        render.observe(0.5)
        render.observe(7)
        render.observe(.infinity)  // ignored

        let expected = """
        # HELP demo_requests_total Requests.\\nSecond line with a \\\\ backslash.
        # TYPE demo_requests_total counter
        demo_requests_total{route="/v1/render",code="200"} 3
        demo_requests_total{route="/a\\"b\\\\c\\nd",code="404"} 1
        # HELP demo_depth Depth.
        # TYPE demo_depth gauge
        demo_depth 1.5
        # HELP demo_sampled Sampled.
        # TYPE demo_sampled gauge
        demo_sampled 42
        # HELP demo_seconds Latency.
        # TYPE demo_seconds histogram
        demo_seconds_bucket{stage="render",le="0.1"} 2
        demo_seconds_bucket{stage="render",le="1"} 3
        demo_seconds_bucket{stage="render",le="+Inf"} 4
        demo_seconds_sum{stage="render"} 7.65
        demo_seconds_count{stage="render"} 4

        """
        #expect(registry.exposition() == expected)
    }

    @Test func registeringAgainReturnsTheSameFamily() {
        let registry = MetricsRegistry()
        let a = registry.counter("same_total", help: "A.")
        let b = registry.counter("same_total", help: "B.")
        a.unlabelled.increment()
        #expect(b.unlabelled.value == 1)
        #expect(registry.exposition().components(separatedBy: "# TYPE same_total").count == 2)
    }

    @Test func countsStayExactUnderConcurrency() {
        let registry = MetricsRegistry()
        let counter = registry.counter("concurrent_total", help: "C.", labels: ["n"])
        let histogram = registry.histogram("concurrent_seconds", help: "H.").unlabelled
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            for j in 0..<10_000 {
                counter.labels(String(j % 3)).increment()
                histogram.observe(Double(j % 7) * 0.01)
            }
        }
        let total = (0..<3).map { counter.labels(String($0)).value }.reduce(0, +)
        #expect(total == 80_000)
        #expect(histogram.count == 80_000)
        let samples = MetricsText.samples(registry.exposition())
        #expect(samples["concurrent_seconds_bucket{le=\"+Inf\"}"] == 80_000)
        #expect(samples["concurrent_seconds_count"] == 80_000)
    }

    @Test func processMetricsReadProcSelf() {
        let rss = ProcessMetrics.residentBytes() ?? 0
        #expect(rss > 1 << 20 && rss < 1 << 40)
        let before = ProcessMetrics.cpuSeconds() ?? -1
        var x = 0.0
        let start = Date()
        while Date().timeIntervalSince(start) < 0.05 { x += sin(x + 1) }
        #expect(x.isFinite)
        let after = ProcessMetrics.cpuSeconds() ?? -1
        #expect(before >= 0 && after >= before)
    }

    @Test func valuesFormatAsGoParsesThem() {
        #expect(PrometheusText.format(3) == "3")
        #expect(PrometheusText.format(0.25) == "0.25")
        #expect(PrometheusText.format(.infinity) == "+Inf")
        #expect(PrometheusText.format(-.infinity) == "-Inf")
        #expect(PrometheusText.format(.nan) == "NaN")
        #expect(PrometheusText.isValidName("splatrender_requests_total"))
        #expect(!PrometheusText.isValidName("9lives"))
        #expect(!PrometheusText.isValidName("a:b", allowColon: false))
    }
}
