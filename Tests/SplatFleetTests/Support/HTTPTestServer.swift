import Foundation
import SplatCore
import SplatService
import TestSupport

/// `Resources/http_test_server.py` on 127.0.0.1 (see its header for the routes): serves
/// files from `root`, records PUTs into `record`, answers 503 on request.
final class HTTPTestServer: @unchecked Sendable {
    // @unchecked: driven from the test's thread only.
    let child: ChildProcess
    let port: Int
    let root: URL
    let record: URL

    init() throws {
        root = try Fixtures.temporaryDirectory("http-root")
        record = try Fixtures.temporaryDirectory("http-record")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/http_test_server.py").path
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "/usr/bin/env"
        let arguments = (python == "/usr/bin/env" ? ["python3"] : []) + [script, "--root", root.path, "--record", record.path]
        child = try ChildProcess(python, arguments)
        guard let line = child.waitForLine(timeout: .seconds(20), { $0.hasPrefix("PORT ") }),
              let port = Int(line.dropFirst(5)) else {
            child.stop()
            throw SplatError(.io, "the HTTP test server did not start")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Puts a file under the served root.
    func serve(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: root.appendingPathComponent(name))
    }

    /// The recorded PUTs: path, content type and body, in arrival order.
    func puts() throws -> [(path: String, contentType: String?, body: [UInt8])] {
        let log = record.appendingPathComponent("puts.jsonl")
        guard FileManager.default.fileExists(atPath: log.path) else { return [] }
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let body = try Data(contentsOf: record.appendingPathComponent(object["file"] as! String))
            return (object["path"] as! String, object["content_type"] as? String, Array(body))
        }
    }

    /// Accepted TCP connections so far (this request's own included) and the requests seen.
    func stats() throws -> (connections: Int, requests: [String]) {
        let bytes = try URLTransfer(configuration: .local).get(url("/_stats"), maxBytes: 10_000_000)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        return (object["connections"] as! Int, object["requests"] as! [String])
    }

    func stop() {
        child.closeInput()
        if !child.waitForExit(timeout: .seconds(5)) { child.stop() }
    }

    deinit {
        child.stop()
        try? FileManager.default.removeItem(at: root)
        try? FileManager.default.removeItem(at: record)
    }
}

extension URLTransfer.Configuration {
    /// No proxy from the environment: tests talk to 127.0.0.1 and nothing else.
    static var local: URLTransfer.Configuration {
        var configuration = URLTransfer.Configuration()
        configuration.useEnvironmentProxy = false
        configuration.connectTimeout = .seconds(5)
        configuration.totalTimeout = .seconds(20)
        return configuration
    }
}
