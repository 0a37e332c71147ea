import Foundation

/// A long-running child (`splatrender serve`, `splatrender worker`) whose standard error goes to
/// a log file of its own, so a failing test can show what it said. It gets `PATH` and the given
/// environment only (no proxy settings: tests talk to 127.0.0.1), and it is stopped by its PID
/// — SIGTERM, a bounded wait, then SIGKILL — when asked, or at the latest when this object goes,
/// even if the test failed half-way through starting it; the log goes with it.
public final class LoggedProcess: @unchecked Sendable {
    // @unchecked: driven from the test's thread only.
    public let process: ChildProcess
    public let logFile: URL

    /// Starts `executable` with `arguments`; `logName` goes into the log file's name.
    public init(_ executable: String, _ arguments: [String], environment: [String: String], logName: String) throws {
        logFile = FileManager.default.temporaryDirectory.appendingPathComponent("splatrender-\(logName)-\(UUID().uuidString).log")
        process = try ChildProcess(executable, arguments, environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 },
                                   standardError: logFile.path)
    }

    /// What the child logged so far.
    public var log: String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }

    /// SIGTERM and a bounded wait (then SIGKILL); the exit code, nil when it had to be killed.
    @discardableResult
    public func stop(timeout: Duration = .seconds(30)) -> Int32? {
        process.stop(timeout: timeout)
        return process.exitCode
    }

    deinit {
        process.stop(timeout: .seconds(5))
        try? FileManager.default.removeItem(at: logFile)
    }
}
