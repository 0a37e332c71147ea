import Foundation
import SplatCore
import SplatFleet
import SplatService
import TestSupport
import Testing

extension FleetTests {
    /// The real `splatrender worker` process on a real redis-server and a real HTTP server.
    @Suite struct WorkerJobTests {
        static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path

        static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

        @Test func everyOutputKindToFilesAndPutURLsWithTheCommandLinesBytes() throws {
            let bed = try FleetTestBed.start("worker-jobs")
            defer { bed.stop() }
            let redisServer = bed.redisServer, http = bed.http, dir = bed.folder
            try http.serve("fruit.ply", try Self.bytes(Self.fruit))
            let out = dir.appendingPathComponent("out").path
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let options = #"{"resolution": "48x40", "sh-degree": 1}"#
            let files = fleetJob("files", input: "file://\(Self.fruit)", options: options, outputs: [
                ("image", "file://\(out)/files/thumb.png", ""),
                ("sheet", "file://\(out)/files/sheet.webp", #""sheet-views": 3"#),
                ("animation", "file://\(out)/files/spin.webp", #""frames": 4, "resolution": "32x32""#),
            ])
            let uploads = fleetJob("uploads", input: http.url("/files/fruit.ply?sig=secret"), options: options, outputs: [
                ("image", http.url("/put/thumb.png?sig=1"), ""),
                ("sheet", http.url("/put/sheet.webp?sig=2"), #""sheet-views": 3"#),
                ("animation", http.url("/put/spin?sig=3"), #""frames": 4, "resolution": "32x32""#),
            ])
            let redis = redisServer.client()
            let entries = [try redis.addJob(files), try redis.addJob(uploads)]
            let metricsPort = freeLocalPort()
            // The output root comes from the environment, as a container would set it.
            let worker = try WorkerProcess(redisServer, name: "w-jobs", arguments: ["--metrics-listen", "127.0.0.1:\(metricsPort)"],
                                           environment: ["SPLATRENDER_OUTPUT_ROOT": out])
            #expect(eventually(timeout: .seconds(60)) { ((try? redis.all(TestKeys.results))?.count ?? 0) == 2 }, "\(worker.log)")
            #expect(eventually { (try? redis.pendingCount()) == 0 })

            let results = try redis.resultsByID()
            for (index, id) in ["files", "uploads"].enumerated() {
                let result = try #require(results[id]?.first, "\(worker.log)")
                #expect(result["status"] == "ok" && result["attempt"] == "1" && result["worker"] == "w-jobs")
                #expect(result["entry"] == entries[index])
                let report = report(of: result)
                #expect(report["command"] as? String == "worker" && report["id"] as? String == id && report["status"] as? String == "ok")
                #expect(report["decoded_count"] as? Int == 4721)
                let outputs = report["outputs"] as? [[String: Any]] ?? []
                #expect(outputs.compactMap { $0["role"] as? String } == ["image", "sheet", "animation"])
                #expect(outputs.compactMap { $0["format"] as? String } == ["png", "webp", "webp"])
            }
            let uploaded = report(of: results["uploads"]?.first)
            #expect(uploaded["input"] as? String == http.url("/files/fruit.ply"), "the report hides the input's signature")
            #expect((uploaded["outputs"] as? [[String: Any]])?.first?["path"] as? String == http.url("/put/thumb.png"))
            #expect(try redis.all(TestKeys.dead).isEmpty)

            // The command line's outputs for the same options.
            let plain = dir.appendingPathComponent("plain").path
            #expect(try splatrender([Self.fruit, "--out", plain + ".png", "--resolution", "48x40", "--sh-degree", "1"]) == 0)
            #expect(try splatrender(["turntable", Self.fruit, "--sheet", plain + ".sheet.webp", "--sheet-views", "3",
                                     "--resolution", "48x40", "--sh-degree", "1"]) == 0)
            #expect(try splatrender(["turntable", Self.fruit, "--animation", plain + ".webp", "--frames", "4",
                                     "--resolution", "32x32", "--sh-degree", "1"]) == 0)
            let expected = [try Self.bytes(plain + ".png"), try Self.bytes(plain + ".sheet.webp"), try Self.bytes(plain + ".webp")]
            #expect(try ["thumb.png", "sheet.webp", "spin.webp"].map { try Self.bytes("\(out)/files/\($0)") } == expected)
            let puts = try http.puts()
            #expect(puts.map(\.path).sorted() == ["/put/sheet.webp?sig=2", "/put/spin?sig=3", "/put/thumb.png?sig=1"])
            for (path, type, body) in puts {
                let index = path.hasPrefix("/put/thumb") ? 0 : path.hasPrefix("/put/sheet") ? 1 : 2
                #expect(body == expected[index], "\(path)")
                #expect(type == (index == 0 ? "image/png" : "image/webp"), "\(path)")
            }
            #expect(try http.stats().requests.filter { $0.hasPrefix("GET /files/") }.count == 1, "one fetch for three outputs")

            // Metrics and health from the worker's own listener.
            let transfer = URLTransfer(configuration: .local)
            let metrics = String(decoding: try transfer.get("http://127.0.0.1:\(metricsPort)/metrics", maxBytes: 1 << 20), as: UTF8.self)
            for line in [#"splatrender_jobs_total{status="ok"} 2"#, "splatrender_job_attempts_total 2", "splatrender_jobs_claimed_total 0"] {
                #expect(metrics.contains(line + "\n"), "\(line)")
            }
            #expect(try transfer.get("http://127.0.0.1:\(metricsPort)/healthz", maxBytes: 100) == Array("ok\n".utf8))

            // SIGTERM with a job running: it finishes, then the worker exits 0.
            let last = try redis.addJob(fleetJob("last", input: "file://\(Self.fruit)", options: options,
                                                 outputs: [("animation", "file://\(out)/last.webp", #""frames": 12"#)]))
            #expect(eventually { (try? redis.pending(stream: TestKeys.stream, group: TestKeys.group, count: 5).map(\.id)) == [last] })
            #expect(worker.stop() == 0, "\(worker.log)")
            #expect(try redis.resultsByID()["last"]?.first?["status"] == "ok", "\(worker.log)")
            #expect(worker.log.contains("worker w-jobs: stopped"))
        }
    }
}
