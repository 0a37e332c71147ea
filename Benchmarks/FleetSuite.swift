import Foundation
import SplatCore
import SplatFleet
import TestSupport

/// Jobs per second of a fleet on this machine against `thumbnails` over the same files in the
/// same run: `copies` copies of one scene, one 256² thumbnail each. The fleet is two
/// `splatrender worker` processes (`--concurrency 1` each) reading one stream of a private
/// redis-server on 127.0.0.1, the jobs queued before the workers start; its time runs from
/// starting the workers to the last result entry. The baseline is `splatrender thumbnails
/// DIR --jobs 2` from spawn to exit. Both use every core for each job's stages, both pay
/// process start-up; the difference is what the queue, the job schema and the per-job result
/// cost. Runs alternate between the two, so a load change during the run hits both alike.
struct FleetSuite {
    let runs: Int
    let report: Report

    /// The issue's target: the fleet keeps at least this share of the batch's throughput.
    static let target = 0.9

    func run(binary: String, scene: String, path: String, copies: Int, side: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: RedisServerProcess.serverPath) else {
            report.progress("fleet skipped: no \(RedisServerProcess.serverPath) (tools/bootstrap installs it)")
            return
        }
        report.progress("fleet: 2 workers vs thumbnails --jobs 2, \(copies) copies of \(scene) at \(side)²")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("splat-bench-fleet-\(getpid())")
        let inputs = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = (0..<copies).map { String(format: "copy-%03d.spz", $0) }
        for name in names { try FileManager.default.copyItem(atPath: path, toPath: inputs.appendingPathComponent(name).path) }
        let server = try RedisServerProcess.start()
        defer { server.stop() }

        var fleet: [Double] = [], batch: [Double] = []
        for round in 0..<max(1, runs) {
            let out = folder.appendingPathComponent("out-\(round)")
            let thumbnails = try ChildProcess.run(binary, ["thumbnails", inputs.path, "--out-dir", out.appendingPathComponent("batch").path,
                                                           "--resolution", "\(side)x\(side)", "--jobs", "2", "-q"], quiet: true)
            guard thumbnails.succeeded else { throw BenchmarkError("thumbnails exited with \(thumbnails.status)") }
            batch.append(Double(copies) / (thumbnails.wallMilliseconds / 1000))
            let seconds = try fleetRun(binary: binary, server: server, round: round, inputs: inputs, names: names,
                                       out: out.appendingPathComponent("fleet"), side: side)
            fleet.append(Double(copies) / seconds)
            try? FileManager.default.removeItem(at: out)
        }
        let details: [(String, JSONScalar)] = [("input", .string(path)), ("copies", .int(copies)), ("side", .int(side)),
                                               ("workers", .int(2)), ("binary", .string(binary))]
        let baseline = Figure(suite: "fleet", name: "fleet.thumbnails.\(scene).\(side)", unit: "jobs/s", sample: Sample(batch),
                              note: "splatrender thumbnails DIR --jobs 2, spawn to exit", details: details)
        report.add(baseline)
        var figure = Figure(suite: "fleet", name: "fleet.workers2.\(scene).\(side)", unit: "jobs/s", sample: Sample(fleet),
                            baseline: .init(figure: baseline.name, value: baseline.sample.median),
                            note: "2 × splatrender worker --concurrency 1 on a local redis-server, workers' start to the last result",
                            details: details)
        figure.target = .init(text: "≥ 90 % of thumbnails", met: figure.ratio.map { $0 >= Self.target })
        report.add(figure)
    }

    /// Queues one job per input on fresh keys, starts two workers and returns the seconds from
    /// their start to the last result.
    private func fleetRun(binary: String, server: RedisServerProcess, round: Int, inputs: URL, names: [String],
                          out: URL, side: Int) throws -> Double {
        let keys = (jobs: "{bench\(round)}:jobs", results: "{bench\(round)}:results", dead: "{bench\(round)}:dead")
        let redis = RedisClient(url: RedisURL(host: "127.0.0.1", port: server.port))
        defer { redis.close() }
        for name in names {
            let job = #"{"id": "\#(name)", "input": "file://\#(inputs.path)/\#(name)", "options": {"resolution": "\#(side)x\#(side)"},"#
                + #" "outputs": [{"kind": "image", "to": "file://\#(out.path)/\#(name).png"}]}"#
            try redis.add(stream: keys.jobs, fields: [StreamField(FleetWorker.jobField, job)])
        }
        let clock = ContinuousClock()
        let start = clock.now
        let workers = try (0..<2).map { k in
            try SpawnedProcess(binary, ["worker", "--redis", server.urlText, "--consumer", "bench-\(round)-\(k)", "--concurrency", "1",
                                        "--stream", keys.jobs, "--results", keys.results, "--dead", keys.dead],
                               environment: ["PATH": "/usr/bin:/bin"])
        }
        defer { for worker in workers { worker.stop(timeout: .seconds(30)) } }
        let deadline = start + .seconds(Double(names.count) * 10 + 60)
        while try redisLength(redis, keys.results) < names.count {
            guard clock.now < deadline, workers.allSatisfy(\.isRunning) else {
                throw BenchmarkError("the fleet did not finish \(names.count) jobs (a worker exited, or past the deadline)")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let elapsed = Stopwatch.milliseconds(clock.now - start) / 1000
        let failed = try redis.range(stream: keys.results, count: names.count + 10).filter { $0["status"] != "ok" }
        guard failed.isEmpty else { throw BenchmarkError("fleet jobs failed: \(failed.prefix(3).map(\.fields))") }
        return elapsed
    }

    private func redisLength(_ redis: RedisClient, _ key: String) throws -> Int {
        Int(try redis.command(["XLEN", key]).orThrow("XLEN").integer ?? 0)
    }
}
