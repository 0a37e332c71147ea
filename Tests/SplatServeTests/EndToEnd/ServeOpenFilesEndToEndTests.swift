import Foundation
import Testing
import SplatService
import TestSupport

/// `serve` under low open-file limits (set with `prlimit` on the child): it raises the soft
/// limit to the hard one, and it accepts only as many connections as leave descriptors for its
/// own work, so a flood of idle connections cannot make a job or a scrape fail for want of one.
@Suite struct ServeOpenFilesEndToEndTests {
    /// The test process's hard limit (the child's can only be lower).
    static var hardLimit: Int { OpenFileLimit.current?.hard ?? 0 }

    @Test(.enabled(if: hardLimit >= 300, "needs a hard open-file limit of at least 300"))
    func serveRaisesItsSoftLimitToTheHardOneAndSizesItsConnectionLimitToIt() throws {
        let hard = min(600, Self.hardLimit)
        try ServeProcess.with(["--workers", "2", "--queue", "2"], openFiles: (soft: 100, hard: hard)) { server in
            let samples = try server.scrape()
            #expect(samples["process_max_fds"] == Double(hard))
            // 64 for the server itself, 8 for each of the 4 job places.
            #expect(samples["splatrender_connection_limit"] == Double(hard - 64 - 4 * 8))
            #expect((samples["process_open_fds"] ?? 0) > 3)
        }
    }

    @Test func moreIdleConnectionsThanDescriptorsLeaveRoomForJobsAndScrapes() throws {
        // 120 descriptors, 2 job places: 120 − 64 − 16 = 40 connections.
        try ServeProcess.with(["--workers", "1", "--queue", "1"], openFiles: (soft: 120, hard: 120)) { server in
            let port = server.port
            let scraper = try RawHTTPClient(port: port), renderer = try RawHTTPClient(port: port, timeout: 30)
            scraper.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            renderer.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(scraper.readResponse()?.status == 200)
            #expect(renderer.readResponse()?.status == 200)

            // Idle connections, more than the process has descriptors. The kernel completes
            // each (the listen backlog holds those not accepted).
            let idle = try (0..<150).map { _ in try RawHTTPClient(port: port, timeout: 2) }
            func metrics() -> [String: Double]? {
                scraper.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                return scraper.readResponse().map { MetricsText.samples(String(decoding: $0.body, as: UTF8.self)) }
            }
            // Give the server time to accept all it will (without a limit of its own it would
            // take descriptors until none were left): the accepted connections show first, then
            // the count holds still.
            _ = eventually(timeout: .seconds(20)) { (metrics()?["process_open_fds"] ?? 0) >= 40 }
            var samples: [String: Double] = [:]
            var settled = 0
            _ = eventually(timeout: .seconds(10)) {
                let now = metrics() ?? [:]
                settled = now["process_open_fds"] == samples["process_open_fds"] ? settled + 1 : 0
                samples = now
                Thread.sleep(forTimeInterval: 0.1)
                return settled >= 5
            }
            #expect(samples["splatrender_connection_limit"] == 40)
            let open = samples["process_open_fds"] ?? .infinity
            #expect(open >= 40, "the accepted connections are open descriptors")
            #expect(open <= 120 - 2 * 8, "\(open) descriptors open of 120: none left for jobs")

            // A render on a connection accepted before the flood still works.
            let spz = [UInt8](try Data(contentsOf: TestScenes.spz))
            renderer.send("POST /v1/render?resolution=64x64 HTTP/1.1\r\nHost: x\r\nContent-Length: \(spz.count)\r\n\r\n")
            renderer.send(spz)
            let rendered = renderer.readResponse()
            #expect(rendered?.status == 200, "\(rendered?.head ?? "no response")")
            #expect(rendered?.body.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

            // Once the flood goes, new clients are served again.
            for client in idle { client.hangUp() }
            #expect(eventually(timeout: .seconds(10)) { (try? server.curl.request("GET", "/healthz", maxTime: 2).status) == 200 })
        }
    }
}
