import Foundation
import Testing
@testable import SplatServe

@Suite struct DrainTests {
    @Test func drainFinishesInFlightWorkAndRefusesNewConnections() throws {
        try TestServer.with(workers: 2, queue: 2) { t in
            // A keep-alive connection opened before the drain, to ask /readyz during it.
            let probe = try RawHTTPClient(port: t.port)
            probe.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(probe.readStatus() == 200)
            _ = probe.readAll(limit: 3)  // the "ok\n" body

            let gate = HoldGate.make()
            defer { HoldGate.open(gate) }
            let inFlight = (0..<3).map { i in Pending { try? t.curl.request("POST", "/test/hold?gate=\(gate)", headers: ["X-Request-Id: drain-\(i)"]) } }
            // Everything below assumes the three are in: without that the drain finds no work and
            // the rest fails in ways that say nothing about the cause.
            var last: [String: Double] = [:]
            let admitted = try t.waitForMetrics { last = $0; return $0["splatrender_jobs_running"] == 2 && $0["splatrender_queue_depth"] == 1 }
            try #require(admitted, "3 held requests never showed as 2 running + 1 queued: last scrape running \(last["splatrender_jobs_running"] ?? -1), queued \(last["splatrender_queue_depth"] ?? -1), server requests \(t.server.activeRequests)")

            let drained = Pending { t.server.drain(grace: .seconds(10)) }
            #expect(AdmissionControllerWait.until { t.server.isDraining })
            // New connections are refused at once, not left waiting in a backlog.
            var refused = false
            for _ in 0..<100 where !refused {
                refused = (try? RawHTTPClient(port: t.port)) == nil
                if !refused { Thread.sleep(forTimeInterval: 0.01) }
            }
            #expect(refused)
            probe.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(probe.readStatus() == 503)

            HoldGate.open(gate)
            for request in inFlight {
                let result = request.wait()
                #expect(result??.status == 200, "\(String(describing: result??.text))")
            }
            let outcome = drained.wait(timeout: 20)
            #expect(outcome == HTTPServer.DrainOutcome(finishedInGrace: true, cancelledJobs: 0))
            #expect(t.server.activeRequests == 0)
            #expect(t.server.admission.snapshot.reservedBytes == 0)
        }
    }

    @Test func jobsStillRunningAfterTheGraceAreCancelledWith503() throws {
        try TestServer.with { (t: TestServer) throws in
            let long = Pending { try? t.curl.request("POST", "/test/hold?ms=20000&bytes=1000") }
            #expect(try t.waitForMetrics { $0["splatrender_jobs_running"] == 1 })
            let start = ContinuousClock.now
            let outcome = t.server.drain(grace: .milliseconds(300))
            #expect(outcome == HTTPServer.DrainOutcome(finishedInGrace: false, cancelledJobs: 1))
            #expect(ContinuousClock.now - start < .seconds(5))
            let result = long.wait()
            #expect(result??.status == 503)
            #expect(result??.errorKind == "cancelled")
            #expect(t.server.admission.snapshot.reservedBytes == 0)
            #expect(t.server.admission.snapshot.inFlight == 0)
        }
    }
}

extension DrainTests {
    @Test func anUploadStillArrivingAfterTheGraceIsAnswered503() throws {
        try TestServer.with { (t: TestServer) throws in
            let client = try RawHTTPClient(port: t.port)
            client.send("POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
            client.send([UInt8](repeating: 1, count: 1000))
            #expect(AdmissionControllerWait.until { t.server.activeRequests == 1 })
            let drained = Pending { t.server.drain(grace: .milliseconds(200)) }
            Thread.sleep(forTimeInterval: 0.4)
            client.send([UInt8](repeating: 2, count: 1000))
            #expect(client.readStatus() == 503)
            client.hangUp()
            #expect(drained.wait(timeout: 10) == HTTPServer.DrainOutcome(finishedInGrace: false, cancelledJobs: 0))
        }
    }
}

/// Bounded polling for conditions that are not metrics.
enum AdmissionControllerWait {
    static func until(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return condition()
    }
}

@Suite(.serialized) struct ShutdownSignalTests {
    /// SIGUSR1 stands in for SIGTERM: the same mechanism, and nothing else in the test process
    /// uses it. The handler is installed before the signal is sent.
    @Test func waitReturnsTheSignalThatArrived() throws {
        let shutdown = ShutdownSignal(signals: [SIGUSR1])
        #expect(shutdown.received == nil)
        kill(getpid(), SIGUSR1)
        let waited = Pending { shutdown.wait() }
        #expect(waited.wait(timeout: 5) == SIGUSR1)
        // A second one during the drain is absorbed.
        kill(getpid(), SIGUSR1)
        #expect(shutdown.received == SIGUSR1)
    }
}
