import Foundation
import SplatCore
import SplatFleet
import TestSupport
import Testing

extension FleetTests {
    /// Leases: crashed workers lose their entries after the lease, live ones keep them.
    @Suite struct StreamLeaseTests {
        /// The FleetTestWorker executable SwiftPM built beside the test bundle.
        static var workerPath: String { builtExecutable("FleetTestWorker") }

        static func startWorker(_ server: RedisServerProcess, name: String, leaseMilliseconds: Int,
                                concurrency: Int = 1) throws -> ChildProcess {
            let worker = try ChildProcess(workerPath, ["--redis", "redis://127.0.0.1:\(server.port)", "--consumer", name,
                                                       "--lease-ms", String(leaseMilliseconds), "--concurrency", String(concurrency)],
                                          environment: ["PATH": "/usr/bin:/bin"])
            #expect(worker.waitForLine(timeout: .seconds(20)) { $0 == "ready \(name)" } != nil)
            return worker
        }

        static func job(_ id: String, sleep: Int = 0, mode: String = "ok") -> String {
            "{\"id\":\"\(id)\",\"sleep_ms\":\(sleep),\"mode\":\"\(mode)\"}"
        }

        @Test func aKilledWorkersEntryIsClaimedByAnotherAfterTheLease() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            // The worker process reads the stream through the default keys.
            let entry = try redis.add(stream: "splatrender:jobs", fields: [StreamField("job", Self.job("slow", sleep: 60_000))])
            let doomed = try Self.startWorker(server, name: "doomed", leaseMilliseconds: 500)
            defer { doomed.stop() }
            #expect(doomed.waitForLine(timeout: .seconds(20)) { $0 == "holding \(entry) slow" } != nil)
            doomed.kill9()
            #expect(try redis.pending(stream: "splatrender:jobs", group: "splatrender", count: 10).first?.consumer == "doomed")

            var configuration = testConfiguration(server, consumer: "survivor", lease: .milliseconds(500))
            configuration.stream = "splatrender:jobs"
            configuration.group = "splatrender"
            let runs = RunLog()
            let survivor = RunningConsumer(configuration) { entry, delivery in
                runs.record("slow", attempt: delivery.attempt)
                #expect(delivery.claimed)
                return .done(fields: [StreamField("id", "slow")])
            }
            defer { survivor.stop() }
            #expect(eventually { ((try? redis.all(TestKeys.results))?.count ?? 0) == 1 })
            let result = try redis.all(TestKeys.results).first
            #expect(result?["worker"] == "survivor")
            #expect(result?["attempt"] == "2")
            #expect(result?["entry"] == entry)
            #expect(runs.attempts("slow") == [2])
            #expect(survivor.counters.claimed == 1)
            #expect(eventually { (try? redis.pending(stream: "splatrender:jobs", group: "splatrender", count: 10).isEmpty) == true })
        }

        @Test func leaseExtensionKeepsASlowJobFromBeingStolen() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            _ = try redis.addJobs(["slow"])
            let runs = RunLog()
            let handler: StreamConsumer.Handler = { entry, delivery in
                runs.record(delivery.worker, attempt: delivery.attempt)
                // Three leases long.
                Thread.sleep(forTimeInterval: 3)
                return .done(fields: [StreamField("id", entry["job"] ?? "?")])
            }
            let holder = RunningConsumer(testConfiguration(server, consumer: "holder", lease: .seconds(1)), handler: handler)
            defer { holder.stop() }
            #expect(eventually { runs.total == 1 })
            var eager = testConfiguration(server, consumer: "eager", lease: .seconds(1))
            eager.claimInterval = .milliseconds(50)
            let other = RunningConsumer(eager, handler: handler)
            defer { other.stop() }
            #expect(eventually { ((try? redis.all(TestKeys.results))?.count ?? 0) == 1 })
            let result = try redis.all(TestKeys.results).first
            #expect(result?["worker"] == "holder")
            #expect(result?["attempt"] == "1")
            #expect(runs.attempts("eager").isEmpty)
            #expect(other.counters.claimed == 0)
            #expect(holder.counters.leaseExtensions >= 2)
        }

        @Test func aJobWhoseEntryWasTakenOverIsCancelledAndLeftToTheNewHolder() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let ids = try redis.addJobs(["contested"])
            let cancelled = RunLog()
            let worker = RunningConsumer(testConfiguration(server, consumer: "slowpoke", lease: .milliseconds(300))) { _, delivery in
                let end = ContinuousClock.now + .seconds(20)
                while !delivery.cancellation.isCancelled && ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.005) }
                if delivery.cancellation.reason == .cancelled { cancelled.record("contested", attempt: delivery.attempt) }
                return .transientFailure(SplatError(.cancelled, "taken over"), fields: [])
            }
            defer { worker.stop() }
            #expect(eventually { (try? redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 1).first?.consumer) == "slowpoke" })
            // Another worker takes it (as XAUTOCLAIM would after a stall).
            _ = try redis.command(["XCLAIM", TestKeys.stream, TestKeys.group, "thief", "0", ids[0]])
            #expect(eventually { cancelled.total == 1 })
            #expect(eventually { worker.counters.leftOnStop == 1 })
            let pending = try redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 1)
            #expect(pending.first?.consumer == "thief", "the lease was not taken back")
            #expect(try redis.all(TestKeys.results).isEmpty)
        }

        /// Two workers, 30 jobs, one killed with SIGKILL while it holds a slow job, a third
        /// started after: every job ends with a result, the killed worker's job elsewhere, and
        /// poison jobs in the dead stream after one attempt.
        @Test func chaosKillOneWorkerStartAnother() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            var jobs: [String] = []
            for index in 0..<30 {
                let id = "job-\(index)"
                jobs.append(id)
                let text = index == 3 ? Self.job(id, sleep: 4000) : Self.job(id, sleep: 100, mode: index % 10 == 7 ? "poison" : "ok")
                _ = try redis.add(stream: "splatrender:jobs", fields: [StreamField("job", text)])
            }
            let first = try Self.startWorker(server, name: "first", leaseMilliseconds: 1000, concurrency: 2)
            defer { first.stop() }
            let second = try Self.startWorker(server, name: "second", leaseMilliseconds: 1000, concurrency: 2)
            defer { second.stop() }
            // Whichever worker picks up the slow job is the one to die.
            var victim: ChildProcess?
            let found = eventually(timeout: .seconds(30)) {
                let holder = try? redis.pending(stream: "splatrender:jobs", group: "splatrender", count: 100)
                    .first { $0.id == holderEntry(redis) }
                if holder?.consumer == "first" { victim = first }
                if holder?.consumer == "second" { victim = second }
                return victim != nil
            }
            #expect(found)
            let victimName = victim === first ? "first" : "second"
            victim?.kill9()
            let third = try Self.startWorker(server, name: "third", leaseMilliseconds: 1000, concurrency: 2)
            defer { third.stop() }

            #expect(eventually(timeout: .seconds(60)) {
                Set((try? redis.all("splatrender:results"))?.compactMap { $0["id"] } ?? []) == Set(jobs)
            })
            #expect(eventually { (try? redis.pending(stream: "splatrender:jobs", group: "splatrender", count: 100).isEmpty) == true })
            let results = try redis.all("splatrender:results")
            let slow = results.filter { $0["id"] == "job-3" }
            #expect(slow.count == 1)
            #expect(slow.first?["worker"] != victimName)
            #expect(slow.first?["attempt"] == "2")
            #expect(slow.first?["status"] == "ok")
            let dead = try redis.all("splatrender:dead")
            #expect(Set(dead.compactMap { $0["id"] }) == ["job-7", "job-17", "job-27"])
            #expect(dead.allSatisfy { $0["attempt"] == "1" && $0["reason"] == "bad_job" })

            for survivor in [first, second, third] where survivor !== victim {
                survivor.stop()
                #expect(survivor.exitCode == 0, "SIGTERM is a graceful stop")
            }
        }
    }
}

/// The entry ID of job-3 (the slow one) in the jobs stream.
private func holderEntry(_ redis: RedisClient) -> String? {
    (try? redis.all("splatrender:jobs"))?.first { $0["job"]?.contains("\"job-3\"") == true }?.id
}
