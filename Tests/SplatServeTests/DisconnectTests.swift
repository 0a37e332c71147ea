import Foundation
import Testing
@testable import SplatServe

@Suite struct DisconnectTests {
    static let reserved = "splatrender_memory_reserved_bytes"

    /// A client that reserves 5 MB at its first body bytes and then hangs up mid-upload.
    @Test(arguments: [false, true])
    func hangingUpMidUploadFreesTheReservation(reset: Bool) throws {
        try TestServer.with { t in
            let client = try RawHTTPClient(port: t.port)
            client.send("POST /test/hold?bytes=5000000 HTTP/1.1\r\nHost: x\r\nX-Request-Id: gone\r\nContent-Length: 1000000\r\n\r\n")
            client.send([UInt8](repeating: 7, count: 4096))
            #expect(try t.waitForMetrics { $0[Self.reserved] == 5_000_000 })
            client.hangUp(reset: reset)
            #expect(try t.waitForMetrics { $0[Self.reserved] == 0 && $0["splatrender_jobs_running"] == 0 })
            let line = t.log.all.first { $0.requestID == "gone" }
            #expect(line?.status == 499)
            #expect(line?.errorKind == "cancelled")
            #expect(try t.waitForMetrics { $0[#"splatrender_requests_total{route="/test/hold",code="499"}"#] == 1 })
        }
    }

    /// A client that hangs up while its job runs: the job's token is cancelled (it stops long
    /// before its 20 s hold), which frees its worker and reservation.
    @Test func hangingUpWhileTheJobRunsCancelsIt() throws {
        try TestServer.with { t in
            let client = try RawHTTPClient(port: t.port)
            client.send("POST /test/hold?bytes=7000000&ms=20000 HTTP/1.1\r\nHost: x\r\nX-Request-Id: left\r\nContent-Length: 0\r\n\r\n")
            #expect(try t.waitForMetrics { $0[Self.reserved] == 7_000_000 && $0["splatrender_jobs_running"] == 1 })
            let start = Date()
            client.hangUp()
            #expect(try t.waitForMetrics { $0[Self.reserved] == 0 && $0["splatrender_jobs_running"] == 0 })
            #expect(Date().timeIntervalSince(start) < 10)
            #expect(try t.waitForMetrics { $0[#"splatrender_requests_total{route="/test/hold",code="499"}"#] == 1 })
            let line = t.log.all.first { $0.requestID == "left" }
            #expect(line?.errorKind == "cancelled")
            #expect((line?.duration ?? .seconds(99)) < .seconds(10))
        }
    }

    /// A client that hangs up while its job waits in the queue: it leaves the queue.
    @Test func hangingUpInTheQueueLeavesIt() throws {
        try TestServer.with(workers: 1, queue: 2) { t in
            let gate = HoldGate.make()
            defer { HoldGate.open(gate) }
            let running = Pending { try? t.curl.request("POST", "/test/hold?gate=\(gate)") }
            #expect(try t.waitForMetrics { $0["splatrender_jobs_running"] == 1 })
            let client = try RawHTTPClient(port: t.port)
            client.send("POST /test/hold?bytes=1000 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(try t.waitForMetrics { $0["splatrender_queue_depth"] == 1 })
            client.hangUp()
            #expect(try t.waitForMetrics { $0["splatrender_queue_depth"] == 0 })
            HoldGate.open(gate)
            #expect(running.wait()??.status == 200)
            #expect(try t.waitForMetrics { $0[Self.reserved] == 0 && $0["splatrender_jobs_running"] == 0 })
        }
    }
}
