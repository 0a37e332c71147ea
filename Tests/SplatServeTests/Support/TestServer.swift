import Foundation
import Synchronization
import SplatService
@testable import SplatServe

/// Collects access log entries in memory.
final class CapturedAccessLog: AccessLogSink {
    private let entries = Mutex<[AccessLogEntry]>([])
    func record(_ entry: AccessLogEntry) { entries.withLock { $0.append(entry) } }
    var all: [AccessLogEntry] { entries.withLock { $0 } }
}

/// A real server on 127.0.0.1 with an ephemeral port and the test routes.
struct TestServer {
    let server: HTTPServer
    let log: CapturedAccessLog
    var port: Int { server.port }
    var curl: CurlClient { CurlClient(port: port) }
    /// The memory budget of `with` unless a test asks for another.
    static let defaultBudget = 1 << 30

    /// Starts a server, runs `body`, and stops the server whatever `body` does.
    static func with<T>(workers: Int = 2, queue: Int = 4, budget: Int = TestServer.defaultBudget, maxBody: Int = 8 << 20,
                        ioThreads: Int = 2, idleTimeout: Int = 30, requestTimeout: Duration = .seconds(30),
                        _ body: (TestServer) throws -> T) throws -> T {
        var configuration = HTTPServer.Configuration(maxBodyBytes: maxBody)
        configuration.listen = ListenAddress(host: "127.0.0.1", port: 0)
        configuration.ioThreads = ioThreads
        configuration.idleTimeoutSeconds = idleTimeout
        configuration.requestTimeout = requestTimeout
        let log = CapturedAccessLog()
        let server = HTTPServer(configuration: configuration, router: TestRoutes.router(),
                                admission: AdmissionController(workers: workers, queueLimit: queue, memoryBudgetBytes: budget),
                                accessLog: log)
        try server.start()
        defer { server.stop() }
        return try body(TestServer(server: server, log: log))
    }

    /// The samples of a `/metrics` scrape, keyed by their full series name
    /// (`name{label="value",...}`, labels as the server wrote them).
    func scrape() throws -> [String: Double] {
        let result = try curl.request("GET", "/metrics")
        return MetricsText.samples(result.text)
    }

    /// Polls `/metrics` until `condition` holds (true) or `timeout` passes (false). The default
    /// is generous because it only matters when the condition never holds: the suite runs in
    /// parallel with the corpus tests, and one CI run saw a state this polls for (three
    /// requests admitted) take more than 5 s to appear.
    func waitForMetrics(timeout: Double = 30, _ condition: ([String: Double]) -> Bool) throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if condition(try scrape()) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// A temporary file of `count` bytes of a repeating pattern (or the given prefix then the pattern).
    static func bodyFile(_ count: Int, prefix: String = "") throws -> URL {
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(count)
        var x: UInt32 = 12345
        while bytes.count < count {
            x = x &* 1_103_515_245 &+ 12345
            bytes.append(UInt8(truncatingIfNeeded: x >> 16))
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try Data(bytes.prefix(count)).write(to: url)
        return url
    }
}
