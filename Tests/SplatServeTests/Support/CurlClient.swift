import Foundation

/// A real HTTP client: the curl command line, one process per request. Used for every request
/// whose bytes need no hand control (those go through `RawHTTPClient`).
struct CurlClient {
    /// What one curl run observed.
    struct Result {
        var status: Int
        var headers: [String: String]
        var body: Data
        /// Bytes of the request body curl actually sent.
        var uploaded: Int
        var exitCode: Int32
        var stderr: String

        var text: String { String(decoding: body, as: UTF8.self) }
        /// The JSON body as a dictionary (nil when it is not a JSON object).
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        /// `error.kind` of a JSON error body.
        var errorKind: String? { (json?["error"] as? [String: Any])?["kind"] as? String }
    }

    let port: Int

    /// Runs `curl` against `path` (which may carry a query). `bodyFile` is sent as the body
    /// with `--data-binary @file`; `extra` adds arguments. Bounded by `--max-time`.
    func request(_ method: String = "GET", _ path: String, bodyFile: URL? = nil, headers: [String] = [],
                 maxTime: Double = 20, extra: [String] = []) throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let bodyOut = dir.appendingPathComponent("body"), headersOut = dir.appendingPathComponent("headers")
        var args = ["-sS", "-X", method, "-o", bodyOut.path, "-D", headersOut.path, "-w", "%{json}",
                    "--max-time", String(maxTime)]
        // curl waits for 100 Continue before bodies over 1 MiB unless told not to; tests that
        // want that pass their own Expect header.
        if !headers.contains(where: { $0.lowercased().hasPrefix("expect:") }) { args += ["-H", "Expect:"] }
        for header in headers { args += ["-H", header] }
        if let bodyFile { args += ["--data-binary", "@" + bodyFile.path, "-H", "Content-Type: application/octet-stream"] }
        args += extra
        args.append("http://127.0.0.1:\(port)\(path)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = args
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let written = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()

        let info = (try? JSONSerialization.jsonObject(with: written) as? [String: Any]) ?? [:]
        let headerText = (try? String(contentsOf: headersOut, encoding: .utf8)) ?? ""
        let headerMap = RawHTTPResponse.fields(headerText.split(whereSeparator: \.isNewline))
        return Result(status: (info["http_code"] as? Int) ?? 0, headers: headerMap,
                      body: (try? Data(contentsOf: bodyOut)) ?? Data(), uploaded: (info["size_upload"] as? Int) ?? -1,
                      exitCode: process.terminationStatus, stderr: String(decoding: errors, as: UTF8.self))
    }
}
