import Foundation
import SplatCore

/// A private `redis-server` on 127.0.0.1 for one test or benchmark: no persistence except an
/// explicit `SHUTDOWN SAVE` (so `launch` after `shutdownSaving` keeps the data, as a production
/// restart with RDB would). Talks to the server only through `redis-cli`, so it needs no client
/// library; the fleet tests add their own client on top.
public final class RedisServerProcess: @unchecked Sendable {
    // @unchecked: driven from the test's thread only.
    public let port: Int
    public let directory: URL
    public let extraArguments: [String]
    public private(set) var child: ChildProcess?

    public static let serverPath = "/usr/bin/redis-server"
    public static let cliPath = "/usr/bin/redis-cli"

    /// Starts a server on a free port (trying another if the port was taken meanwhile).
    public static func start(_ extraArguments: [String] = []) throws -> RedisServerProcess {
        var lastError: Error?
        for _ in 0..<5 {
            let server = try RedisServerProcess(port: freeLocalPort(), extraArguments: extraArguments)
            do {
                try server.launch()
                return server
            } catch {
                lastError = error
                server.stop()
            }
        }
        throw lastError ?? SplatError(.io, "redis-server did not start")
    }

    private init(port: Int, extraArguments: [String]) throws {
        self.port = port
        self.extraArguments = extraArguments
        directory = try Fixtures.temporaryDirectory("redis")
    }

    /// `redis://127.0.0.1:PORT`.
    public var urlText: String { "redis://127.0.0.1:\(port)" }

    /// Runs redis-server and waits (up to 10 s) until it answers PING.
    public func launch() throws {
        child = try ChildProcess(Self.serverPath, [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--dbfilename", "dump.rdb", "--loglevel", "warning",
        ] + extraArguments)
        let ready = eventually(timeout: .seconds(10)) {
            guard child?.isRunning == true else { return true }
            // Any answer but LOADING means it serves (NOAUTH counts: a password is set).
            guard let answer = cli(["PING"]), !answer.isEmpty else { return false }
            return !answer.contains("LOADING")
        }
        guard ready, child?.isRunning == true else { throw SplatError(.io, "redis-server on port \(port) did not start") }
    }

    /// One `redis-cli` command's standard output, nil when it could not run or timed out.
    @discardableResult
    public func cli(_ arguments: [String], timeout: Duration = .seconds(10)) -> String? {
        guard let run = try? ChildProcess(Self.cliPath, ["-h", "127.0.0.1", "-p", String(port)] + arguments) else { return nil }
        var lines: [String] = []
        while let line = run.waitForLine(timeout: timeout, { _ in true }) { lines.append(line) }
        run.waitForExit(timeout: timeout)
        return lines.joined(separator: "\n")
    }

    /// Saves the data set and exits (`SHUTDOWN SAVE`), as an orderly restart would.
    public func shutdownSaving() {
        cli(["SHUTDOWN", "SAVE"])
        if child?.waitForExit(timeout: .seconds(10)) != true { child?.kill9() }
    }

    /// Stops by PID (SIGTERM, then SIGKILL) without saving.
    public func stop() {
        child?.stop()
        child = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
