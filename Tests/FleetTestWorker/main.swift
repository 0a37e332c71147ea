// A StreamConsumer in its own process, so tests can kill -9 a worker while it holds a job and
// watch the others take it over. Not a product: the real `splatrender worker` runs scene jobs.
//
// FleetTestWorker --redis URL --consumer NAME [--lease-ms N] [--concurrency N] [--max-attempts N]
//
// A job field is JSON {"id": "…", "sleep_ms": N, "mode": "ok" | "poison" | "transient"}.
// Standard output gets one line per event: "holding <entry> <id>", "finished <entry> <id>".
// SIGTERM stops gracefully (exit 0).
import Dispatch
import Foundation
import SplatCore
import SplatFleet

/// One unbuffered line on standard output (the test reads it through a pipe, live).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

do {
    guard let redis = option("--redis"), let name = option("--consumer") else {
        complain("usage: FleetTestWorker --redis URL --consumer NAME [--lease-ms N] [--concurrency N] [--max-attempts N]")
        exit(64)
    }
    var configuration = StreamConsumerConfiguration(redis: try RedisURL(parsing: redis))
    configuration.consumer = name
    configuration.lease = .milliseconds(Int(option("--lease-ms") ?? "1000") ?? 1000)
    configuration.concurrency = Int(option("--concurrency") ?? "1") ?? 1
    configuration.maxAttempts = Int(option("--max-attempts") ?? "3") ?? 3
    configuration.readBlock = .milliseconds(100)
    configuration.grace = .seconds(5)
    var options = RedisClient.Options()
    options.backoffBase = .milliseconds(20)
    options.backoffCap = .milliseconds(300)
    configuration.redisOptions = options

    let consumer = StreamConsumer(configuration: configuration) { entry, delivery in
        let job = (try? JSONSerialization.jsonObject(with: Data((entry["job"] ?? "").utf8))) as? [String: Any] ?? [:]
        let id = job["id"] as? String ?? "?"
        say("holding \(entry.id) \(id)")
        let fields = [StreamField("id", id)]
        let end = ContinuousClock.now + .milliseconds(job["sleep_ms"] as? Int ?? 0)
        while ContinuousClock.now < end {
            if delivery.cancellation.isCancelled {
                return .transientFailure(SplatError(.interrupted, "stopped"), fields: fields)
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        say("finished \(entry.id) \(id)")
        switch job["mode"] as? String ?? "ok" {
        case "poison": return .permanentFailure(SplatError(.badJob, "poison job \(id)"), fields: fields)
        case "transient": return .transientFailure(SplatError(.io, "flaky \(id)"), fields: fields)
        default: return .done(fields: fields)
        }
    }
    signal(SIGTERM, SIG_IGN)
    let terminate = DispatchSource.makeSignalSource(signal: SIGTERM, queue: .global())
    // @Sendable: an unmarked closure in top-level code is main-actor isolated, and running it
    // on a dispatch queue traps on the isolation check.
    terminate.setEventHandler { @Sendable in consumer.stop() }
    terminate.resume()
    say("ready \(name)")
    try consumer.run()
    say("stopped \(name)")
    exit(0)
} catch {
    complain("FleetTestWorker: \(error)")
    exit(1)
}
