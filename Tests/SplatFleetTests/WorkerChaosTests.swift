import Foundation
import SplatCore
import SplatFleet
import SplatService
import TestSupport
import Testing

extension FleetTests {
    /// Worker processes dying, poison jobs, and the lease doing its work.
    @Suite struct WorkerChaosTests {
        /// Small scenes of every format family, fast to render in a debug build.
        static let goodInputs: [String] = [
            Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path,
            Fixtures.vector("minimal-v4.spz"),
            Fixtures.corpusFile("ply/loadersgl-train-1000.ply"),
            Fixtures.corpusFile("splat/splat-transform-minimal.splat"),
            Fixtures.corpusFile("sog/playbot-lod4"),
            Fixtures.corpusFile("spz/adobe-SanitySplats.spz"),
            Fixtures.corpusFile("ply/gs3d-pr477-lod3_tile_0.ply"),
        ]
        /// Slow enough (seconds in a debug build) that a worker is sure to be holding it when killed.
        static let slowInput = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path

        @Test func aKilledWorkersJobFinishesElsewhereAndPoisonIsDeadAtOnce() throws {
            let redisServer = try RedisServerProcess.start()
            defer { redisServer.stop() }
            let dir = try Fixtures.temporaryDirectory("worker-chaos")
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("out").path
            // Poison: cut short, not a scene at all, and over the job's own ceiling.
            let spz = try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v4.spz")))
            try spz.prefix(spz.count - 9).write(to: dir.appendingPathComponent("cut.spz"))
            try Data("plain text\n".utf8).write(to: dir.appendingPathComponent("notes.ply"))
            var poison: [String: String] = [:]
            var jobs: [(id: String, json: String)] = []
            let options = #"{"resolution": "32x32", "sh-degree": 0}"#
            for k in 0..<2 {
                jobs.append(("slow-\(k)", fleetJob("slow-\(k)", input: "file://\(Self.slowInput)", options: options,
                                                   outputs: [("image", "file://\(out)/slow-\(k).png", "")])))
            }
            for k in 0..<25 {
                let input = Self.goodInputs[k % Self.goodInputs.count]
                jobs.append(("good-\(k)", fleetJob("good-\(k)", input: "file://\(input)", options: options,
                                                   outputs: [("image", "file://\(out)/good-\(k).png", "")])))
            }
            for (id, input, extra, kind) in [("cut", dir.path + "/cut.spz", "", "truncated"), ("notes", dir.path + "/notes.ply", "", "bad_magic"),
                                             ("huge", Self.slowInput, #", "max-decoded-bytes": "1M""#, "too_large")] {
                poison[id] = kind
                jobs.insert((id, fleetJob(id, input: "file://\(input)", options: #"{"resolution": "32x32"\#(extra)}"#,
                                          outputs: [("image", "file://\(out)/\(id).png", "")])), at: jobs.count / 2)
            }
            #expect(jobs.count == 30)
            let redis = redisServer.client()
            var entryOf: [String: String] = [:]
            for job in jobs { entryOf[job.id] = try redis.addJob(job.json) }

            let doomed = try WorkerProcess(redisServer, name: "doomed")
            let steady = try WorkerProcess(redisServer, name: "steady")
            // Kill the first worker while it holds one of the slow jobs (they take seconds).
            var held: String?
            #expect(eventually(timeout: .seconds(60)) {
                held = (try? redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 100, consumer: "doomed"))?
                    .first { [entryOf["slow-0"], entryOf["slow-1"]].contains($0.id) }?.id
                return held != nil
            }, "\(doomed.log)")
            doomed.process.kill9()
            let killedAt = ContinuousClock.now
            let third = try WorkerProcess(redisServer, name: "third")
            // The entry stays with the dead worker until its lease (2 s from its last extension,
            // at most 2/3 s before the kill) runs out, then another worker claims it.
            var claimedAfter: Duration?
            #expect(eventually(timeout: .seconds(30)) {
                let holder = (try? redis.pending(stream: TestKeys.stream, group: TestKeys.group, from: held!, to: held!, count: 1))?.first
                if holder?.consumer == "doomed" { return false }
                claimedAfter = ContinuousClock.now - killedAt
                return true
            })
            #expect(claimedAfter.map { $0 >= .milliseconds(1300) && $0 <= .seconds(10) } == true, "claimed after \(String(describing: claimedAfter))")

            let ids = Set(jobs.map(\.id))
            #expect(eventually(timeout: .seconds(120)) { Set(((try? redis.resultsByID()) ?? [:]).keys).isSuperset(of: ids) },
                    "\(steady.log)\n\(third.log)")
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            let results = try redis.resultsByID()
            #expect(Set(results.keys) == ids, "nothing lost, nothing invented")
            for id in ids {
                let statuses = Set(results[id]?.compactMap { $0["status"] } ?? [])
                #expect(statuses == [poison[id] ?? "ok"], "\(id): \(statuses)")
            }
            #expect(ids.filter { poison[$0] == nil }.count == 27)
            for id in ids where poison[id] == nil {
                #expect(FileManager.default.fileExists(atPath: "\(out)/\(id).png"), "\(id)")
            }
            // The killed worker's job: finished by another worker, as its second delivery, after the lease.
            let heldID = try #require(entryOf.first { $0.value == held }?.key)
            let taken = try #require(results[heldID]?.first)
            #expect(taken["worker"] != "doomed" && taken["attempt"] == "2", "\(taken)")
            #expect(results[heldID]?.count == 1)

            // Poison is dead after exactly one attempt, with its own kind as the reason.
            let dead = try redis.all(TestKeys.dead)
            #expect(dead.count == 3)
            for letter in dead {
                let id = letter["id"] ?? "?"
                #expect(letter["reason"] == poison[id] && letter["attempt"] == "1" && letter["status"] == poison[id], "\(letter)")
                #expect(letter["job"] == jobs.first { $0.id == id }?.json, "the dead letter carries the job")
            }
            #expect(steady.stop() == 0 && third.stop() == 0)
        }
    }
}
