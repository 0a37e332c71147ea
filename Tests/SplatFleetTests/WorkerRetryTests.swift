import Foundation
import SplatCore
import SplatFleet
import SplatService
import TestSupport
import Testing

extension FleetTests {
    /// Transient failures retried through redelivery, Redis going away, and locations refused.
    @Suite struct WorkerRetryTests {
        static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
        static let options = #"{"resolution": "24x24", "sh-degree": 0}"#

        @Test func a503TwiceSucceedsOnAttempt3AndAlways503IsDeadWithMaxAttempts() throws {
            let bed = try FleetTestBed.start("worker-retry")
            defer { bed.stop() }
            let redisServer = bed.redisServer, http = bed.http, out = bed.folder
            try http.serve("fruit.ply", [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fruit))))
            let redis = redisServer.client()
            _ = try redis.addJob(fleetJob("flaky", input: http.url("/files/fruit.ply?fail=2"), options: Self.options,
                                          outputs: [("image", "file://\(out.path)/flaky.png", "")]))
            _ = try redis.addJob(fleetJob("down", input: http.url("/files/fruit.ply?fail=1000"), options: Self.options,
                                          outputs: [("image", "file://\(out.path)/down.png", "")]))
            _ = try redis.addJob(fleetJob("upload", input: "file://\(Self.fruit)", options: Self.options,
                                          outputs: [("image", http.url("/put/u.png?fail=1"), "")]))
            let worker = try WorkerProcess(redisServer, name: "w-retry", lease: 1, concurrency: 3)
            #expect(eventually(timeout: .seconds(60)) { ((try? redis.all(TestKeys.results))?.count ?? 0) == 3 }, "\(worker.log)")
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            let results = try redis.resultsByID()
            #expect(results["flaky"]?.map { [$0["status"], $0["attempt"]] } == [["ok", "3"]])
            #expect(FileManager.default.fileExists(atPath: out.path + "/flaky.png"))
            #expect(results["upload"]?.map { [$0["status"], $0["attempt"]] } == [["ok", "2"]])
            #expect(try http.puts().map(\.path) == ["/put/u.png?fail=1"])
            #expect(results["down"]?.map { [$0["status"], $0["attempt"]] } == [["io", "3"]])
            let dead = try redis.all(TestKeys.dead)
            #expect(dead.map { [$0["id"], $0["reason"], $0["attempt"]] } == [["down", "max_attempts", "3"]])
            #expect(dead.first?["error"]?.contains("answered 503") == true)
            #expect(try http.stats().requests.filter { $0.contains("fail=1000") }.count == 3, "one fetch per attempt")
            #expect(!FileManager.default.fileExists(atPath: out.path + "/down.png"))
            #expect(worker.stop() == 0)
        }

        @Test func workersRideOutARedisRestartAndFinishWhatWasNotAcknowledged() throws {
            let redisServer = try RedisServerProcess.start()
            defer { redisServer.stop() }
            let out = try Fixtures.temporaryDirectory("worker-restart")
            defer { try? FileManager.default.removeItem(at: out) }
            let redis = redisServer.client()
            func add(_ id: String) throws {
                _ = try redis.addJob(fleetJob(id, input: "file://\(Self.fruit)", options: Self.options,
                                              outputs: [("animation", "file://\(out.path)/\(id).webp", #""frames": 6"#)]))
            }
            for k in 0..<8 { try add("before-\(k)") }
            let workers = [try WorkerProcess(redisServer, name: "r1"), try WorkerProcess(redisServer, name: "r2")]
            #expect(eventually(timeout: .seconds(60)) { ((try? redis.all(TestKeys.results))?.count ?? 0) >= 2 })
            // Stop and start the server on the same port, keeping its data (RDB), mid-run.
            redisServer.shutdownSaving()
            Thread.sleep(forTimeInterval: 1)
            try redisServer.launch()
            // The test's own connection died with the server too.
            redis.close()
            for k in 0..<2 { try add("after-\(k)") }
            let ids = Set((0..<8).map { "before-\($0)" } + (0..<2).map { "after-\($0)" })
            #expect(eventually(timeout: .seconds(90)) { Set(((try? redis.resultsByID()) ?? [:]).keys) == ids },
                    "\(workers.map(\.log).joined(separator: "\n"))")
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            for (id, entries) in try redis.resultsByID() {
                #expect(entries.allSatisfy { $0["status"] == "ok" }, "\(id)")
                #expect(FileManager.default.fileExists(atPath: "\(out.path)/\(id).webp"), "\(id)")
            }
            #expect(workers.contains { $0.log.contains("redis trouble") }, "the restart was felt")
            for worker in workers { #expect(worker.stop() == 0) }
        }

        @Test func locationsOutsideTheRootsOrWithOtherSchemesAreBadJobsNeverTouched() throws {
            let bed = try FleetTestBed.start("worker-roots")
            defer { bed.stop() }
            let redisServer = bed.redisServer, http = bed.http, dir = bed.folder
            let inputs = dir.appendingPathComponent("in").path, outputs = dir.appendingPathComponent("out").path
            let outside = dir.appendingPathComponent("outside").path
            for folder in [inputs, outputs, outside] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            try FileManager.default.copyItem(atPath: Self.fruit, toPath: inputs + "/fruit.ply")
            try FileManager.default.copyItem(atPath: Self.fruit, toPath: outside + "/fruit.ply")
            let good = "file://\(inputs)/fruit.ply", target = "file://\(outputs)/ok.png"
            let cases: [(id: String, input: String, to: String)] = [
                ("outside-input", "file://\(outside)/fruit.ply", target),
                ("dotdot-input", "file://\(inputs)/../outside/fruit.ply", target),
                ("encoded-dotdot", "file://\(inputs)/%2E%2E/outside/fruit.ply", target),
                ("outside-output", good, "file://\(outside)/escape.png"),
                ("dotdot-output", good, "file://\(outputs)/../outside/escape2.png"),
                ("gopher", "gopher://127.0.0.1:\(http.port)/1", target),
                ("ftp-output", good, "ftp://127.0.0.1:\(http.port)/x.png"),
                ("other-host", "file://fileserver\(inputs)/fruit.ply", target),
                ("redirect-to-file", http.url("/redirect-to?url=file://\(inputs)/fruit.ply"), target),
            ]
            let redis = redisServer.client()
            for job in cases {
                _ = try redis.addJob(fleetJob(job.id, input: job.input, options: Self.options, outputs: [("image", job.to, "")]))
            }
            _ = try redis.addJob(fleetJob("inside", input: good, options: Self.options, outputs: [("image", target, "")]))
            let worker = try WorkerProcess(redisServer, name: "w-roots", concurrency: 2,
                                           environment: ["SPLATRENDER_INPUT_ROOT": inputs, "SPLATRENDER_OUTPUT_ROOT": outputs])
            #expect(eventually(timeout: .seconds(60)) { ((try? redis.all(TestKeys.results))?.count ?? 0) == cases.count + 1 },
                    "\(worker.log)")
            let results = try redis.resultsByID()
            #expect(results["inside"]?.first?["status"] == "ok", "\(worker.log)")
            for job in cases {
                let result = results[job.id]?.first
                #expect(result?["status"] == "bad_job" && result?["attempt"] == "1", "\(job.id): \(String(describing: result))")
                // Refused before the header was read: the report knows nothing of the scene.
                #expect(report(of: result)["format"] is NSNull, "\(job.id)")
            }
            #expect(Set(try redis.all(TestKeys.dead).compactMap { $0["id"] }) == Set(cases.map(\.id)))
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).sorted() == ["fruit.ply"], "nothing written outside")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outputs) == ["ok.png"])
            #expect(try http.stats().requests.filter { !$0.contains("_stats") } == ["GET /redirect-to?url=file://\(inputs)/fruit.ply"])
            #expect(worker.stop() == 0)
        }
    }
}
