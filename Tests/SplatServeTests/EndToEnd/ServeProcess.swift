import Foundation
import SplatCore
import TestSupport

/// The real `splatrender serve` as a child process on 127.0.0.1 and a free port (`--listen
/// 127.0.0.1:0`; the port is read from its `listening on` line), its access log in a file,
/// stopped by its PID whatever the test does.
final class ServeProcess: @unchecked Sendable {
    // @unchecked: driven from the test's thread; requests from other threads only read `port`.
    static var binary: String { builtExecutable("splatrender") }

    private let child: LoggedProcess
    var process: ChildProcess { child.process }
    let port: Int

    /// Starts `splatrender serve` with `arguments` (after `--listen 127.0.0.1:0` unless
    /// `listen` is false) and `environment` beside PATH; waits up to 30 s for it to listen.
    /// `openFiles` starts it with those open-file limits (util-linux `prlimit`, which sets them
    /// and then becomes the server: the PID stays the server's).
    init(_ arguments: [String] = [], environment: [String: String] = [:], listen: Bool = true,
         openFiles: (soft: Int, hard: Int)? = nil) throws {
        var all = ["serve"] + (listen ? ["--listen", "127.0.0.1:0"] : []) + arguments
        var executable = Self.binary
        if let openFiles {
            all = ["--nofile=\(openFiles.soft):\(openFiles.hard)", "--", executable] + all
            executable = "/usr/bin/prlimit"
        }
        let child = try LoggedProcess(executable, all, environment: environment, logName: "serve")
        guard let line = child.process.waitForLine(timeout: .seconds(30), { $0.hasPrefix("listening on ") }),
              let colon = line.lastIndex(of: ":"), let port = Int(line[line.index(after: colon)...]) else {
            // Stopped as `child` goes.
            throw SplatError(.io, "splatrender serve did not start: \(child.log)")
        }
        self.child = child
        self.port = port
    }

    /// Starts a server, runs `body`, and stops the server by its PID whatever `body` does.
    static func with<T>(_ arguments: [String] = [], environment: [String: String] = [:],
                        openFiles: (soft: Int, hard: Int)? = nil, _ body: (ServeProcess) throws -> T) throws -> T {
        let server = try ServeProcess(arguments, environment: environment, openFiles: openFiles)
        defer { server.stop() }
        return try body(server)
    }

    var curl: CurlClient { CurlClient(port: port) }

    /// The access log written so far, one parsed JSON object per line.
    var accessLog: [[String: Any]] {
        let text = child.log
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The samples of a `/metrics` scrape.
    func scrape() throws -> [String: Double] { MetricsText.samples(try curl.request("GET", "/metrics").text) }

    /// Polls `/metrics` until `condition` holds (true) or `timeout` seconds pass (false).
    func waitForMetrics(timeout: Double = 20, _ condition: ([String: Double]) -> Bool) throws -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let samples = try? scrape(), condition(samples) { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// SIGTERM, a bounded wait (then SIGKILL); the exit code, nil when it had to be killed.
    @discardableResult
    func stop(timeout: Duration = .seconds(30)) -> Int32? { child.stop(timeout: timeout) }
}

/// `splatrender SCENE --out - ARGS…`: the bytes the command line writes for the same options.
func commandLineImage(_ scene: String, _ arguments: [String]) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: ServeProcess.binary)
    process.arguments = [scene, "--out", "-", "--quiet"] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let bytes = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw SplatError(.io, "splatrender \(scene) --out - \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
    return bytes
}

/// Scenes of the corpus small enough for a debug build, and files made for a test.
enum TestScenes {
    static func corpus(_ name: String) -> URL { Fixtures.corpus.appendingPathComponent(name) }

    static let spz = corpus("ply/reference/gs3d-pr477-lod3_tile_0.v4.spz")
    static let legacySPZ = corpus("ply/reference/gs3d-pr477-lod3_tile_0.v3.spz")
    static let ply = corpus("ply/loadersgl-train-1000.ply")
    static let sog = corpus("sog/monkey_0001.sog")
    static let biker = Fixtures.sampleScenes.appendingPathComponent("biker.spz")

    /// The first `count` records of the corpus's `.splat` (records are independent).
    static func splat(count: Int = 4000) throws -> URL {
        let all = try Data(contentsOf: corpus("splat/luma-seal.splat"))
        return try write(all.prefix(32 * count), name: "scene.splat")
    }

    /// A binary PLY whose header declares `count` splats of SH degree 3 (248 decoded bytes
    /// each) followed by `bodyBytes` bytes: over the ceiling from its header when `count` is
    /// large, whatever its body.
    static func oversizePLY(count: Int = 20_000_000, bodyBytes: Int = 256 << 10) throws -> URL {
        var header = "ply\nformat binary_little_endian 1.0\nelement vertex \(count)\n"
        let names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<45).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
        for name in names { header += "property float \(name)\n" }
        header += "end_header\n"
        return try write(Data(header.utf8) + Data(count: bodyBytes), name: "oversize.ply")
    }

    /// `bytes` in a new temporary file named `name`.
    static func write(_ bytes: Data, name: String) throws -> URL {
        let url = try Fixtures.temporaryDirectory("serve").appendingPathComponent(name)
        try bytes.write(to: url)
        return url
    }
}
