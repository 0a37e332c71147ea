import Foundation
import SplatCore
import SplatFleet
import SplatService
import TestSupport
import Testing

extension FleetTests {
    /// The whole path a fleet job takes, minus the render: a stream entry names an input URL
    /// and an output location; the handler fetches, "renders" (copies the bytes) and stores,
    /// and the consumer turns the outcome into results, retries and dead letters.
    @Suite struct FleetTransferTests {
        /// A stand-in for the scene job: `{"id", "input", "to"}`.
        static func copyJob(roots: JobLocationRoots, transfer: URLTransfer) -> StreamConsumer.Handler {
            { entry, delivery in
                var fields: [StreamField] = []
                do {
                    guard let object = try? JSONSerialization.jsonObject(with: Data((entry["job"] ?? "").utf8)) as? [String: Any],
                          let id = object["id"] as? String, let input = object["input"] as? String, let to = object["to"] as? String else {
                        throw SplatError(.badJob, "job is not {\"id\", \"input\", \"to\"}")
                    }
                    fields.append(StreamField("id", id))
                    let source = try roots.input(input)
                    let target = try roots.output(to)
                    let bytes: [UInt8]
                    switch source {
                    case .remote(let url): bytes = try transfer.get(url, maxBytes: 1 << 20, cancellation: delivery.cancellation)
                    case .file(let path): bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                    }
                    try roots.store(bytes, at: target, contentType: "image/png", transfer: transfer, cancellation: delivery.cancellation)
                    return .done(fields: fields + [StreamField("report", "{\"bytes\":\(bytes.count)}")])
                } catch let error as SplatError {
                    return .failure(error, fields: fields + [StreamField("report", "{\"error\":\"\(error.kind.rawValue)\"}")])
                } catch {
                    return .failure(SplatError(.io, "\(error)"), fields: fields)
                }
            }
        }

        static func job(_ id: String, input: String, to: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: ["id": id, "input": input, "to": to]), as: UTF8.self)
        }

        @Test func flakyInputSucceedsOnTheThirdAttemptAndABrokenOneIsDead() throws {
            let bed = try FleetTestBed.start("fleet-out")
            defer { bed.stop() }
            let redisServer = bed.redisServer, http = bed.http, outputs = bed.folder
            try http.serve("scene.spz", [7, 7, 7])
            let redis = redisServer.client()
            _ = try redis.addJobs([
                Self.job("flaky", input: http.url("/files/scene.spz?fail=2"), to: "file://\(outputs.path)/flaky/thumb.png"),
                Self.job("down", input: http.url("/files/scene.spz?fail=1000"), to: "file://\(outputs.path)/down.png"),
                Self.job("upload", input: http.url("/files/scene.spz"), to: http.url("/put/sheet.png?fail=1&sig=s")),
                Self.job("escape", input: "file:///etc/passwd", to: "file://\(outputs.path)/x.png"),
                Self.job("gopher", input: "gopher://127.0.0.1:\(http.port)/", to: "file://\(outputs.path)/y.png"),
                "not json",
            ])
            let roots = try JobLocationRoots(inputRoot: outputs.path, outputRoot: outputs.path)
            let worker = RunningConsumer(testConfiguration(redisServer, consumer: "w1", lease: .milliseconds(300), concurrency: 2),
                                         handler: Self.copyJob(roots: roots, transfer: URLTransfer(configuration: .local)))
            defer { worker.stop() }
            #expect(eventually(timeout: .seconds(30)) { ((try? redis.all(TestKeys.results))?.count ?? 0) == 6 })
            #expect(eventually { (try? redis.pendingCount()) == 0 })
            let results = try redis.all(TestKeys.results)
            func result(_ id: String) -> StreamEntry? { results.first { $0["id"] == id } }
            #expect(result("flaky")?["status"] == "ok")
            #expect(result("flaky")?["attempt"] == "3")
            #expect(try Data(contentsOf: outputs.appendingPathComponent("flaky/thumb.png")) == Data([7, 7, 7]))
            #expect(result("upload")?["status"] == "ok")
            #expect(result("upload")?["attempt"] == "2")
            #expect(try http.puts().map(\.contentType) == ["image/png"])
            #expect(result("down")?["status"] == "io")
            #expect(result("escape")?["status"] == "bad_job")
            #expect(result("gopher")?["status"] == "bad_job")

            let dead = try redis.all(TestKeys.dead)
            func letter(_ id: String) -> StreamEntry? { dead.first { $0["id"] == id } }
            #expect(dead.count == 4)
            #expect(letter("down")?["reason"] == "max_attempts")
            #expect(letter("down")?["attempt"] == "3")
            #expect(letter("down")?["error"]?.contains("answered 503") == true)
            for poison in ["escape", "gopher"] {
                #expect(letter(poison)?["reason"] == "bad_job")
                #expect(letter(poison)?["attempt"] == "1")
            }
            #expect(dead.contains { $0["job"] == "not json" && $0["reason"] == "bad_job" && $0["attempt"] == "1" })
            // The refused input was never fetched: the server saw only the good and flaky paths.
            let requests = try http.stats().requests
            #expect(requests.filter { $0.contains("fail=1000") }.count == 3)
            #expect(!requests.contains { $0.contains("gopher") })
            #expect(worker.counters.deadByReason == ["max_attempts": 1, "bad_job": 3])
        }
    }
}
