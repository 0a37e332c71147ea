import Foundation
import SplatCore
import SplatFleet
import TestSupport
import Testing

extension FleetTests {
    /// The consumer engine against a real redis-server, with handlers that stand in for jobs.
    @Suite struct StreamConsumerTests {
        @Test func everyJobGetsAResultThenAnAcknowledgement() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let ids = try redis.addJobs((0..<20).map { "job-\($0)" })
            let runs = RunLog()
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1", concurrency: 3)) { entry, delivery in
                runs.record(entry["job"] ?? "?", attempt: delivery.attempt)
                // Handler fields named like the consumer's own are dropped, not duplicated.
                return .done(fields: [StreamField("id", entry["job"] ?? "?"), StreamField("status", "forged"),
                                      StreamField("report", "{\"ok\":true}")])
            }
            #expect(eventually { (try? redis.all(TestKeys.results).count) == 20 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            #expect(worker.stop() == nil)
            let results = try redis.all(TestKeys.results)
            #expect(Set(results.compactMap { $0["id"] }) == Set((0..<20).map { "job-\($0)" }))
            #expect(Set(results.compactMap { $0["entry"] }) == Set(ids))
            for result in results {
                #expect(result["status"] == "ok")
                #expect(result["attempt"] == "1")
                #expect(result["worker"] == "w1")
                #expect(result["report"] == "{\"ok\":true}")
                #expect(result.fields.filter { $0.name == "status" }.count == 1)
            }
            #expect(runs.total == 20)
            #expect(try redis.all(TestKeys.dead).isEmpty)
            let counters = worker.counters
            #expect(counters.jobsByStatus == ["ok": 20])
            #expect(counters.attempts == 20)
            #expect(counters.claimed == 0)
        }

        @Test func aResultThatCannotBeWrittenIsNeverAcknowledged() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            // The results key holds a string: XADD fails with WRONGTYPE, which no retry cures.
            _ = try redis.command(["SET", TestKeys.results, "not a stream"])
            let ids = try redis.addJobs(["only"])
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1")) { _, _ in .done(fields: []) }
            let error = worker.waitForEnd(timeout: .seconds(20))
            #expect(error?.kind == .invalidArgument)
            #expect(error?.message.contains("WRONGTYPE") == true)
            // Still pending: the acknowledgement only ever follows a written result.
            let pending = try redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 10)
            #expect(pending.map(\.id) == ids)
        }

        @Test func permanentFailureIsDeadAfterOneAttempt() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let ids = try redis.addJobs(["poison", "fine"])
            let runs = RunLog()
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1")) { entry, delivery in
                let job = entry["job"] ?? "?"
                runs.record(job, attempt: delivery.attempt)
                if job == "poison" {
                    return .failure(SplatError(.badJob, "input scheme gopher is not allowed"), fields: [StreamField("id", job)])
                }
                return .done(fields: [StreamField("id", job)])
            }
            #expect(eventually { (try? redis.all(TestKeys.results).count) == 2 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            worker.stop()
            let dead = try redis.all(TestKeys.dead)
            #expect(dead.count == 1)
            #expect(dead.first?["job"] == "poison", "the dead letter carries the job itself")
            #expect(dead.first?["reason"] == "bad_job")
            #expect(dead.first?["error"] == "bad_job: input scheme gopher is not allowed")
            #expect(dead.first?["attempt"] == "1")
            #expect(dead.first?["entry"] == ids[0])
            let poisonResult = try redis.all(TestKeys.results).first { $0["id"] == "poison" }
            #expect(poisonResult?["status"] == "bad_job")
            #expect(runs.attempts("poison") == [1])
            #expect(worker.counters.deadByReason == ["bad_job": 1])
            #expect(worker.counters.jobsByStatus == ["ok": 1, "bad_job": 1])
        }

        @Test func transientFailureIsRetriedThroughRedelivery() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            _ = try redis.addJobs(["flaky"])
            let runs = RunLog()
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1", lease: .milliseconds(200))) { entry, delivery in
                runs.record("flaky", attempt: delivery.attempt)
                if delivery.attempt < 3 { return .failure(SplatError(.io, "GET answered 503"), fields: [StreamField("id", "flaky")]) }
                return .done(fields: [StreamField("id", "flaky")])
            }
            #expect(eventually { (try? redis.all(TestKeys.results).count) == 1 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            worker.stop()
            let result = try redis.all(TestKeys.results).first
            #expect(result?["status"] == "ok")
            #expect(result?["attempt"] == "3")
            #expect(runs.attempts("flaky") == [1, 2, 3])
            #expect(try redis.all(TestKeys.dead).isEmpty)
            #expect(worker.counters.retriesPending == 2)
            #expect(worker.counters.claimed == 2, "each retry is a claim of the idle entry")
        }

        @Test func lastTransientFailureIsDeadWithMaxAttempts() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let ids = try redis.addJobs(["always-503"])
            let runs = RunLog()
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1", lease: .milliseconds(200))) { _, delivery in
                runs.record("always-503", attempt: delivery.attempt)
                return .failure(SplatError(.io, "GET answered 503"), fields: [StreamField("id", "always-503")])
            }
            #expect(eventually { (try? redis.all(TestKeys.dead).count) == 1 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            worker.stop()
            let dead = try redis.all(TestKeys.dead).first
            #expect(dead?["reason"] == "max_attempts")
            #expect(dead?["error"] == "io: GET answered 503")
            #expect(dead?["attempt"] == "3")
            #expect(dead?["entry"] == ids[0])
            #expect(try redis.all(TestKeys.results).first?["status"] == "io")
            #expect(runs.attempts("always-503") == [1, 2, 3])
            #expect(worker.counters.deadByReason == ["max_attempts": 1])
        }

        @Test func anEntryDeliveredTooOftenIsDeadWithoutARun() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            try redis.createGroup(stream: TestKeys.stream, group: TestKeys.group)
            let ids = try redis.addJobs(["crasher"])
            // Three deliveries to workers that "died" holding it: a read and two claims.
            _ = try redis.readGroup(stream: TestKeys.stream, group: TestKeys.group, consumer: "ghost-1", count: 1, block: nil)
            for ghost in ["ghost-2", "ghost-3"] {
                _ = try redis.command(["XCLAIM", TestKeys.stream, TestKeys.group, ghost, "0", ids[0]])
            }
            #expect(try redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 1).first?.deliveries == 3)
            let runs = RunLog()
            var configuration = testConfiguration(server, consumer: "w1", lease: .milliseconds(100))
            configuration.claimInterval = .milliseconds(50)
            let worker = RunningConsumer(configuration, abandoned: { entry in [StreamField("id", entry["job"] ?? "?")] }) { entry, delivery in
                runs.record(entry["job"] ?? "?", attempt: delivery.attempt)
                return .done(fields: [])
            }
            #expect(eventually { (try? redis.all(TestKeys.dead).count) == 1 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            worker.stop()
            let dead = try redis.all(TestKeys.dead).first
            #expect(dead?["reason"] == "max_attempts")
            #expect(dead?["attempt"] == "4")
            #expect(dead?["id"] == "crasher")
            #expect(try redis.all(TestKeys.results).first?["status"] == "interrupted")
            #expect(runs.total == 0)
        }

        @Test func gracefulStopLeavesUnfinishedEntriesPending() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let ids = try redis.addJobs(["endless"])
            var configuration = testConfiguration(server, consumer: "w1", lease: .seconds(30))
            configuration.grace = .milliseconds(300)
            let started = RunLog()
            let worker = RunningConsumer(configuration) { _, delivery in
                started.record("endless", attempt: delivery.attempt)
                // Ends only when the consumer cancels it at the end of the grace.
                while !delivery.cancellation.isCancelled { Thread.sleep(forTimeInterval: 0.005) }
                return .transientFailure(delivery.cancellation.error(for: .interrupted, at: "in the test job"), fields: [])
            }
            #expect(eventually { started.total == 1 })
            let began = ContinuousClock.now
            #expect(worker.stop(timeout: .seconds(20)) == nil)
            #expect(ContinuousClock.now - began < .seconds(10))
            #expect(try redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 10).map(\.id) == ids)
            #expect(try redis.all(TestKeys.results).isEmpty)
            #expect(worker.counters.leftOnStop == 1)
        }

        @Test func aVanishedGroupIsCreatedAgain() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            _ = try redis.addJobs(["before"])
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1")) { entry, _ in
                .done(fields: [StreamField("id", entry["job"] ?? "?")])
            }
            defer { worker.stop() }
            #expect(eventually { ((try? redis.all(TestKeys.results))?.count ?? 0) == 1 })
            // A restart without persistence, or an operator's FLUSHALL.
            _ = try redis.command(["FLUSHALL"])
            #expect(eventually { (try? redis.command(["EXISTS", TestKeys.stream]))?.integer == 1 })
            _ = try redis.addJobs(["after"])
            #expect(eventually { (try? redis.all(TestKeys.results))?.first?["id"] == "after" })
            #expect(worker.hasEnded == false)
        }

        @Test func workersReconnectAfterARedisRestartAndFinishEverything() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let jobs = (0..<30).map { "job-\($0)" }
            _ = try redis.addJobs(jobs)
            let worker = RunningConsumer(testConfiguration(server, consumer: "w1", lease: .seconds(2), concurrency: 2)) { entry, _ in
                Thread.sleep(forTimeInterval: 0.03)
                return .done(fields: [StreamField("id", entry["job"] ?? "?")])
            }
            #expect(eventually { ((try? redis.all(TestKeys.results))?.count ?? 0) >= 5 })
            // Stop and start the server on the same port while jobs are in flight.
            let down = ContinuousClock.now
            server.shutdownSaving()
            Thread.sleep(forTimeInterval: 0.3)
            try server.launch()
            let up = ContinuousClock.now
            // Read at once: the workers may already be writing again (that only shortens the figure).
            let before = try redis.commandRetrying(["XLEN", TestKeys.results], limit: .seconds(10)).integer ?? 0
            #expect(eventually(timeout: .seconds(30)) { ((try? redis.command(["XLEN", TestKeys.results]))?.integer ?? 0) > before })
            print("redis restart: first new result \(ContinuousClock.now - up) after the server was back")
            #expect(eventually(timeout: .seconds(30)) {
                Set((try? redis.all(TestKeys.results))?.compactMap { $0["id"] } ?? []) == Set(jobs)
            })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            let recovered = ContinuousClock.now - down
            #expect(worker.stop() == nil)
            #expect(worker.consumer.connectionStats.drops >= 1)
            #expect(worker.counters.redisErrors >= 1)
            print("redis restart: all 30 jobs done \(recovered) after the shutdown (incl. 0.3 s down)")
        }
    }
}

extension FleetTests {
    /// Figures, not assertions on speed: printed for the record (`swift test --filter Throughput`).
    @Suite struct StreamConsumerThroughput {
        @Test func trivialHandlerThroughput() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            let count = 3000
            for start in stride(from: 0, to: count, by: 500) {
                // One pipelined MULTI would be faster; plain XADDs keep the setup obvious.
                _ = try redis.addJobs((start..<min(start + 500, count)).map { "job-\($0)" })
            }
            for concurrency in [1, 4] {
                let group = "bench-\(concurrency)"
                var configuration = testConfiguration(server, consumer: "bench", concurrency: concurrency)
                configuration.group = group
                configuration.results = "{t}:results-\(concurrency)"
                configuration.lease = .seconds(30)
                let began = ContinuousClock.now
                let worker = RunningConsumer(configuration) { _, _ in .done(fields: [StreamField("id", "x")]) }
                let finished = eventually(timeout: .seconds(120)) {
                    ((try? redis.command(["XLEN", configuration.results]))?.integer ?? 0) >= Int64(count)
                }
                let elapsed = ContinuousClock.now - began
                #expect(finished)
                #expect(worker.stop() == nil)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                print("throughput: \(count) entries, concurrency \(concurrency): \(Int(Double(count) / seconds)) entries/s")
            }
        }
    }
}
