import Foundation
import SplatCore
import SplatService
import TestSupport
import Testing

extension FleetTests {
    /// libcurl transfers against a real HTTP server on 127.0.0.1.
    @Suite struct URLTransferTests {
        let transfer = URLTransfer(configuration: .local)

        func kind(_ body: () throws(SplatError) -> Void) -> SplatErrorKind? {
            do {
                try body()
                return nil
            } catch {
                return error.kind
            }
        }

        @Test func getAndPut() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            let scene = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try server.serve("scene.spz", scene)
            #expect(try transfer.get(server.url("/files/scene.spz"), maxBytes: 1 << 20) == scene)
            #expect(try transfer.get(server.url("/bytes/0"), maxBytes: 0) == [])

            let png: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0, 0, 13, 10]
            try transfer.put(png, to: server.url("/put/thumb.png?sig=abc"), contentType: "image/png")
            try transfer.put([], to: server.url("/put/empty"), contentType: "application/octet-stream")
            let puts = try server.puts()
            #expect(puts.count == 2)
            #expect(puts.first?.path == "/put/thumb.png?sig=abc")
            #expect(puts.first?.contentType == "image/png")
            #expect(puts.first?.body == png)
            #expect(puts.last?.body == [])
        }

        @Test func serviceUnavailableIsTransientUntilItPasses() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            let url = server.url("/bytes/10?fail=2")
            #expect(kind { () throws(SplatError) in _ = try transfer.get(url, maxBytes: 100) } == .io)
            #expect(kind { () throws(SplatError) in _ = try transfer.get(url, maxBytes: 100) } == .io)
            #expect(try transfer.get(url, maxBytes: 100).count == 10)
            #expect(kind { () throws(SplatError) in try transfer.put([1], to: server.url("/p?fail=1"), contentType: "image/png") } == .io)
            #expect(try server.puts().isEmpty)
        }

        @Test func statusCodesSayWhetherToRetry() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            for (status, expected) in [(404, SplatErrorKind.badJob), (403, .badJob), (400, .badJob), (408, .io), (429, .io),
                                       (500, .io), (502, .io), (503, .io), (304, .badJob)] {
                let got = kind { () throws(SplatError) in _ = try transfer.get(server.url("/status/\(status)"), maxBytes: 100) }
                #expect(got == expected, "status \(status)")
            }
            // Nobody listens on a port the kernel just handed out and took back.
            let refused = kind { () throws(SplatError) in _ = try transfer.get("http://127.0.0.1:\(freeLocalPort())/", maxBytes: 10) }
            #expect(refused == .io)
        }

        @Test func bodiesOverTheCapAreRefusedAndStopped() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            #expect(try transfer.get(server.url("/bytes/1000"), maxBytes: 1000).count == 1000)
            // Announced by Content-Length…
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/bytes/1001"), maxBytes: 1000) } == .tooLarge)
            // …or found while streaming: 200 MB chunked against a 100 kB cap stops early.
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/chunked/200000000"), maxBytes: 100_000) } == .tooLarge)
            #expect(try transfer.get(server.url("/chunked/5000"), maxBytes: 5000).count == 5000)
        }

        @Test func atMostThreeRedirects() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            try server.serve("a.bin", [1, 2, 3])
            #expect(try transfer.get(server.url("/redirect/3/files/a.bin"), maxBytes: 10) == [1, 2, 3])
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/redirect/4/files/a.bin"), maxBytes: 10) } == .badJob)
        }

        @Test func otherSchemesAreRefusedWithoutAConnection() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            let before = try server.stats().connections
            for url in ["ftp://127.0.0.1:\(server.port)/x", "gopher://127.0.0.1:\(server.port)/x", "file:///etc/passwd",
                        "FILE:///etc/passwd", "dict://127.0.0.1:\(server.port)/", "127.0.0.1:\(server.port)/x", "http:/x",
                        "http://127.0.0.1:\(server.port)/a b"] {
                #expect(kind { () throws(SplatError) in _ = try transfer.get(url, maxBytes: 10) } == .badJob, "\(url)")
                #expect(kind { () throws(SplatError) in try transfer.put([1], to: url, contentType: "image/png") } == .badJob, "\(url)")
            }
            // The only new connection is the stats request itself.
            #expect(try server.stats().connections == before + 1)
            // A redirect to another scheme is refused by libcurl's redirect protocol list.
            for target in ["file:///etc/passwd", "ftp://127.0.0.1:\(server.port)/", "gopher://127.0.0.1:\(server.port)/"] {
                let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let got = kind { () throws(SplatError) in _ = try transfer.get(server.url("/redirect-to?url=\(escaped)"), maxBytes: 1 << 20) }
                #expect(got == .badJob, "redirect to \(target)")
            }
        }

        @Test func timeoutsAndCancellation() throws {
            let server = try HTTPTestServer()
            defer { server.stop() }
            var short = URLTransfer.Configuration.local
            short.totalTimeout = .milliseconds(300)
            // Our own transfer limit is transient…
            #expect(kind { () throws(SplatError) in _ = try URLTransfer(configuration: short).get(server.url("/slow/3000"), maxBytes: 10) } == .io)
            // …the job's deadline is the job's timeout.
            let deadline = CancellationToken(budget: .milliseconds(300))
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/slow/3000"), maxBytes: 10, cancellation: deadline) } == .timeout)
            // A cancel from another thread stops a transfer in flight.
            let token = CancellationToken()
            let canceller = Thread {
                Thread.sleep(forTimeInterval: 0.2)
                token.cancel(.cancelled)
            }
            canceller.start()
            let began = ContinuousClock.now
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/slow/10000"), maxBytes: 10, cancellation: token) } == .cancelled)
            #expect(ContinuousClock.now - began < .seconds(8), "stopped well before the server answered")
            // Already cancelled: refused before connecting.
            #expect(kind { () throws(SplatError) in _ = try transfer.get(server.url("/bytes/1"), maxBytes: 10, cancellation: token) } == .cancelled)
        }

        @Test func redactedURLsHideSignaturesAndPasswords() {
            #expect(URLTransfer.redacted("https://user:pw@host.example/put/a.png?sig=secret#x") == "https://host.example/put/a.png")
            #expect(URLTransfer.redacted("http://h/p") == "http://h/p")
        }
    }
}
