import Dispatch
import Foundation
import SplatCore
import SplatFleet
import TestSupport
import Synchronization

/// A StreamConsumer running on its own thread, as `splatrender worker` runs one on main.
final class RunningConsumer: Sendable {
    let consumer: StreamConsumer
    private let finished = DispatchSemaphore(value: 0)
    /// nil while running; then .some(the error run threw, or nil).
    private let ending = Mutex<SplatError??>(nil)

    init(_ configuration: StreamConsumerConfiguration, abandoned: @escaping StreamConsumer.AbandonedFields = { _ in [] },
         handler: @escaping StreamConsumer.Handler) {
        let consumer = StreamConsumer(configuration: configuration, abandonedFields: abandoned, handler: handler)
        self.consumer = consumer
        let thread = Thread { [self] in
            do {
                try consumer.run()
                ending.withLock { $0 = .some(nil) }
            } catch let error as SplatError {
                ending.withLock { $0 = .some(error) }
            } catch {
                ending.withLock { $0 = .some(SplatError(.io, "\(error)")) }
            }
            finished.signal()
        }
        thread.start()
    }

    var counters: StreamConsumerCounters.Snapshot { consumer.counters.snapshot }
    var hasEnded: Bool { ending.withLock { $0 != nil } }

    /// Stops gracefully and waits (bounded) for `run` to return; the error it threw, if any.
    @discardableResult
    func stop(timeout: Duration = .seconds(30)) -> SplatError? {
        consumer.stop()
        return waitForEnd(timeout: timeout)
    }

    func waitForEnd(timeout: Duration) -> SplatError? {
        _ = finished.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds) * 1000))
        finished.signal()  // later waits return at once
        return ending.withLock { $0 ?? SplatError(.timeout, "consumer did not stop") }
    }
}

/// Per-job counts of handler runs, shared with handlers.
final class RunLog: Sendable {
    private let runs = Mutex<[String: [Int]]>([:])

    func record(_ job: String, attempt: Int) { runs.withLock { $0[job, default: []].append(attempt) } }
    func attempts(_ job: String) -> [Int] { runs.withLock { $0[job] ?? [] } }
    var total: Int { runs.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}

/// Key names that share one hash tag, as a Cluster deployment would name them.
enum TestKeys {
    static let stream = "{t}:jobs", group = "workers", results = "{t}:results", dead = "{t}:dead"
}

func testConfiguration(_ server: RedisServerProcess, consumer: String, lease: Duration = .milliseconds(400),
                       concurrency: Int = 2, maxAttempts: Int = 3) -> StreamConsumerConfiguration {
    var configuration = StreamConsumerConfiguration(redis: server.url)
    configuration.redisOptions = .testing
    configuration.stream = TestKeys.stream
    configuration.group = TestKeys.group
    configuration.results = TestKeys.results
    configuration.dead = TestKeys.dead
    configuration.consumer = consumer
    configuration.lease = lease
    configuration.concurrency = concurrency
    configuration.maxAttempts = maxAttempts
    configuration.readBlock = .milliseconds(50)
    configuration.grace = .seconds(5)
    configuration.cancelWait = .seconds(2)
    return configuration
}

extension RedisClient {
    /// Adds jobs whose `job` field is the given text; returns the entry IDs in order.
    func addJobs(_ jobs: [String]) throws -> [String] {
        try jobs.map { try add(stream: TestKeys.stream, fields: [StreamField("job", $0)]) }
    }

    func all(_ stream: String) throws -> [StreamEntry] { try range(stream: stream, count: 100_000) }

    func pendingCount() throws -> Int {
        try pending(stream: TestKeys.stream, group: TestKeys.group, count: 100_000).count
    }
}
