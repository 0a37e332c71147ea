import Foundation
import SplatCore
import SplatFleet
import TestSupport

/// The real `splatrender worker` as a child process, on the test keys of `server`, its log
/// (standard error) in a file the test can show when something fails.
final class WorkerProcess: @unchecked Sendable {
    // @unchecked: driven from the test's thread only.
    static var binary: String { builtExecutable("splatrender") }

    let name: String
    private let child: LoggedProcess
    var process: ChildProcess { child.process }

    /// Starts a worker and waits (up to 20 s) until it reads the stream. `environment` adds
    /// `SPLATRENDER_*` settings; the process gets no proxy settings (tests talk to 127.0.0.1).
    init(_ server: RedisServerProcess, name: String, lease: Double = 2, concurrency: Int = 1, maxAttempts: Int = 3,
         arguments: [String] = [], environment: [String: String] = [:]) throws {
        self.name = name
        let all = ["worker", "--redis", server.urlText, "--consumer", name, "--lease", String(lease),
                   "--concurrency", String(concurrency), "--max-attempts", String(maxAttempts),
                   "--stream", TestKeys.stream, "--group", TestKeys.group, "--results", TestKeys.results,
                   "--dead", TestKeys.dead] + arguments
        child = try LoggedProcess(Self.binary, all, environment: environment, logName: "worker-\(name)")
        guard eventually(timeout: .seconds(20), { log.contains("worker \(name): reading ") || !process.isRunning }),
              process.isRunning else {
            throw SplatError(.io, "worker \(name) did not start: \(log)")
        }
    }

    /// What the worker logged so far.
    var log: String { child.log }

    /// SIGTERM and a bounded wait; the exit code (nil when it had to be killed).
    @discardableResult
    func stop(timeout: Duration = .seconds(30)) -> Int32? { child.stop(timeout: timeout) }
}

extension RedisClient {
    /// Adds one job whose `job` field is `json`; returns its entry ID.
    func addJob(_ json: String) throws -> String {
        try add(stream: TestKeys.stream, fields: [StreamField(FleetWorker.jobField, json)])
    }

    /// The results so far, by job id (several per id when a job ran more than once).
    func resultsByID() throws -> [String: [StreamEntry]] {
        Dictionary(grouping: try all(TestKeys.results)) { $0["id"] ?? "" }
    }
}

/// A job in the schema with file:// or http:// locations, as the tests write them.
func fleetJob(_ id: String, input: String, options: String = "{}", outputs: [(kind: String, to: String, extra: String)]) -> String {
    let list = outputs.map { #"{"kind": "\#($0.kind)", "to": "\#($0.to)"\#($0.extra.isEmpty ? "" : ", " + $0.extra)}"# }
    return #"{"id": "\#(id)", "input": "\#(input)", "options": \#(options), "outputs": [\#(list.joined(separator: ", "))]}"#
}

/// The report JSON of a result entry.
func report(of result: StreamEntry?) -> [String: Any] {
    guard let text = result?["report"], let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        return [:]
    }
    return object
}

/// Runs the same `splatrender` binary to completion (up to 120 s): the command line's outputs,
/// to compare a worker's with. Returns its exit code.
@discardableResult
func splatrender(_ arguments: [String]) throws -> Int32? {
    let run = try ChildProcess(WorkerProcess.binary, arguments, environment: ["PATH": "/usr/bin:/bin"])
    run.waitForExit(timeout: .seconds(120))
    return run.exitCode
}
