import Foundation
import SplatCore
import SplatFleet
import TestSupport

/// A private `redis-server` on 127.0.0.1 for one test: no persistence except an explicit
/// `SHUTDOWN SAVE` (so `restart` keeps the data, as a production restart with RDB would).
final class RedisServerProcess: @unchecked Sendable {
    // @unchecked: driven from the test's thread only.
    let port: Int
    let directory: URL
    private(set) var child: ChildProcess?

    /// Starts a server on a free port (trying another if the port was taken meanwhile).
    static func start(_ extraArguments: [String] = []) throws -> RedisServerProcess {
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

    let extraArguments: [String]

    private init(port: Int, extraArguments: [String]) throws {
        self.port = port
        self.extraArguments = extraArguments
        directory = try Fixtures.temporaryDirectory("redis")
    }

    var url: RedisURL { RedisURL(host: "127.0.0.1", port: port) }

    func client(_ options: RedisClient.Options = .testing) -> RedisClient { RedisClient(url: url, options: options) }

    /// Runs redis-server and waits (up to 10 s) until it answers PING.
    func launch() throws {
        child = try ChildProcess("/usr/bin/redis-server", [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--dbfilename", "dump.rdb", "--loglevel", "warning",
        ] + extraArguments)
        let probe = client()
        defer { probe.close() }
        let ready = eventually(timeout: .seconds(10)) {
            guard child?.isRunning == true else { return true }
            // Any answer but LOADING means it serves (NOAUTH counts: a password is set).
            guard let reply = try? probe.command(["PING"]) else { return false }
            return reply.errorCode != "LOADING"
        }
        guard ready, child?.isRunning == true else { throw SplatError(.io, "redis-server on port \(port) did not start") }
    }

    /// Saves the data set and exits (`SHUTDOWN SAVE`), as an orderly restart would.
    func shutdownSaving() {
        let admin = client()
        _ = try? admin.command(["SHUTDOWN", "SAVE"])
        admin.close()
        if child?.waitForExit(timeout: .seconds(10)) != true { child?.kill9() }
    }

    /// Stops by PID (SIGTERM, then SIGKILL) without saving.
    func stop() {
        child?.stop()
        child = nil
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

extension RedisClient.Options {
    /// Short timeouts and backoff so tests that restart servers move quickly.
    static var testing: RedisClient.Options {
        var options = RedisClient.Options()
        options.connectTimeout = .seconds(2)
        options.commandTimeout = .seconds(5)
        options.backoffBase = .milliseconds(20)
        options.backoffCap = .milliseconds(300)
        return options
    }
}
