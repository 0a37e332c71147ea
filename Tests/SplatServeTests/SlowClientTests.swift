import Foundation
import Synchronization
import Testing
@testable import SplatServe

@Suite struct SlowClientTests {
    /// One normal request over its own connection, timed from connect to the end of the
    /// status line: the whole exchange a client waits for.
    static func normalRequest(port: Int) -> Duration? {
        let start = ContinuousClock.now
        guard let client = try? RawHTTPClient(port: port) else { return nil }
        client.send("POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        guard client.readStatus() == 200 else { return nil }
        return ContinuousClock.now - start
    }

    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    @Test func twentyTricklingClientsDoNotDelayANormalRequest() throws {
        try TestServer.with(ioThreads: 2, idleTimeout: 30) { t in
            let baseline = (0..<9).compactMap { _ in Self.normalRequest(port: t.port) }
            #expect(baseline.count == 9)

            // Ten clients trickle their request head, ten their body, one byte a second.
            let head = Array("POST /test/echo HTTP/1.1\r\nHost: slow\r\nContent-Length: 10\r\n\r\n".utf8)
            let clients = try (0..<20).map { _ in try RawHTTPClient(port: t.port) }
            for (i, client) in clients.enumerated() where i >= 10 { client.send(head) }
            let stop = StopFlag()
            let tricklers = Pending {
                // Bounded: at most 6 rounds of one byte per client, a second apart.
                for round in 0..<6 where !stop.isSet {
                    for (i, client) in clients.enumerated() {
                        client.send(i < 10 ? [head[round]] : [UInt8(ascii: "x")])
                    }
                    Thread.sleep(forTimeInterval: 1)
                }
                return true
            }
            Thread.sleep(forTimeInterval: 2.2)
            #expect(t.server.activeRequests >= 10)  // the body tricklers are in the middle of requests
            let loaded = (0..<9).compactMap { _ in Self.normalRequest(port: t.port) }
            stop.set()
            _ = tricklers.wait(timeout: 10)
            #expect(loaded.count == 9)
            // The bound: not delayed by more than 100 ms. Medians of nine, because on a
            // shared two-core machine a single request can lose its core to someone else's build.
            let delay = Self.median(loaded) - Self.median(baseline)
            #expect(delay < .milliseconds(100), "baseline \(Self.median(baseline)), with 20 trickling clients \(Self.median(loaded))")
            for client in clients { client.hangUp() }
            let settled = try t.waitForMetrics { $0["splatrender_in_flight_requests"] == 1 }
            let left = try t.scrape()["splatrender_in_flight_requests"]
            #expect(settled, "in flight: \(String(describing: left)), active \(t.server.activeRequests)")
        }
    }
}

/// A flag one thread sets and another polls.
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
