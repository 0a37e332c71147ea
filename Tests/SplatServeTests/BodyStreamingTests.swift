import Foundation
import Testing
@testable import SplatServe

@Suite struct BodyStreamingTests {
    @Test func bodiesStreamThroughTheHandlerIntact() throws {
        try TestServer.with { t in
            let file = try TestServer.bodyFile(3_000_001)
            defer { try? FileManager.default.removeItem(at: file) }
            let expected = CRC32.of(try Data(contentsOf: file))
            let plain = try t.curl.request("POST", "/test/echo", bodyFile: file, headers: ["X-Request-Id: plain"])
            #expect(plain.status == 200)
            #expect(plain.json?["length"] as? Int == 3_000_001)
            #expect((plain.json?["crc32"] as? Int).map(UInt32.init) == expected)
            let chunked = try t.curl.request("POST", "/test/echo", bodyFile: file, headers: ["Transfer-Encoding: chunked"])
            #expect(chunked.status == 200)
            #expect(chunked.json?["length"] as? Int == 3_000_001)
            #expect((chunked.json?["crc32"] as? Int).map(UInt32.init) == expected)
            let line = t.log.all.first { $0.requestID == "plain" }
            #expect(line?.bytesIn == 3_000_001)
            #expect(line?.bytesOut == plain.body.count)
        }
    }

    /// Posts a `size`-byte body to the echo route of a server that takes 1 MiB and checks the
    /// refusal; `check` then looks at how much of the body curl sent.
    private func postOverTheCap(_ size: Int, headers: [String] = [],
                                check: (TestServer, CurlClient.Result) throws -> Void) throws {
        try TestServer.with(maxBody: 1 << 20) { t in
            let file = try TestServer.bodyFile(size)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try t.curl.request("POST", "/test/echo", bodyFile: file, headers: headers)
            #expect(result.status == 413, "curl exit \(result.exitCode): \(result.stderr)")
            #expect(result.errorKind == "body_too_large")
            try check(t, result)
        }
    }

    @Test func aDeclaredBodyOverTheCapIsRefusedBeforeItIsSent() throws {
        try postOverTheCap(16 << 20) { t, result throws in
            #expect(result.uploaded < 16 << 20, "curl sent \(result.uploaded) bytes")
            #expect(try t.waitForMetrics { $0[#"splatrender_rejected_total{reason="body_too_large"}"#] == 1 })
        }
    }

    @Test func aClientExpecting100ContinueSendsNoBodyAtAll() throws {
        try postOverTheCap(4 << 20, headers: ["Expect: 100-continue"]) { _, result in
            #expect(result.uploaded == 0, "curl sent \(result.uploaded) bytes")
        }
    }

    @Test func aChunkedBodyPastTheCapIsRefusedMidUpload() throws {
        try postOverTheCap(16 << 20, headers: ["Transfer-Encoding: chunked"]) { _, result in
            #expect(result.uploaded < 16 << 20, "curl sent \(result.uploaded) bytes")
        }
    }

    @Test func aSniffedHeaderRefusesTheRestOfTheBody() throws {
        try TestServer.with(maxBody: 64 << 20) { t in
            let huge = try TestServer.bodyFile(32 << 20, prefix: "HUGE")
            defer { try? FileManager.default.removeItem(at: huge) }
            let refused = try t.curl.request("POST", "/test/sniff", bodyFile: huge, headers: ["X-Request-Id: sniffed"])
            #expect(refused.status == 413)
            #expect(refused.errorKind == "too_large")
            #expect(refused.headers["x-request-id"] == "sniffed")
            #expect(refused.uploaded < 32 << 20, "curl sent \(refused.uploaded) bytes")
            let error = refused.json?["error"] as? [String: Any]
            #expect(error?["field"] as? String == "count")
            #expect(error?["offset"] as? Int == 0)

            let normal = try TestServer.bodyFile(100_000, prefix: "PLY\n")
            defer { try? FileManager.default.removeItem(at: normal) }
            let accepted = try t.curl.request("POST", "/test/sniff", bodyFile: normal)
            #expect(accepted.status == 200)
            #expect(accepted.json?["length"] as? Int == 100_000)
            // The refusal is logged with its status although the client hung up on the rest.
            #expect(try t.waitForMetrics { $0[#"splatrender_requests_total{route="/test/sniff",code="413"}"#] == 1 })
        }
    }

    @Test func anIdleConnectionIsClosed() throws {
        try TestServer.with(idleTimeout: 1) { t in
            let client = try RawHTTPClient(port: t.port, timeout: 8)
            client.send("POST /test/echo HTTP/1.1\r\nHost: x\r\n")
            let start = Date()
            let rest = client.readAll()
            // libmicrohttpd counts the timeout in whole seconds; closed well before our 8 s read limit.
            #expect(rest.isEmpty)
            #expect(Date().timeIntervalSince(start) < 5)
        }
    }
}
