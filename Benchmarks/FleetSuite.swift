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
///
/// Wall time on a shared machine also depends on how much of the cores the other tenants
/// leave, and two processes get a larger share than one; so CPU per job is reported beside it
/// (the workers' and redis-server's CPU against the batch's), which other load barely moves.
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

        var fleet: [Double] = [], batch: [Double] = [], fleetCPU: [Double] = [], batchCPU: [Double] = []
        for round in 0..<max(1, runs) {
            let out = folder.appendingPathComponent("out-\(round)")
            let thumbnails = try ChildProcess.run(binary, ["thumbnails", inputs.path, "--out-dir", out.appendingPathComponent("batch").path,
                                                           "--resolution", "\(side)x\(side)", "--jobs", "2", "-q"], quiet: true)
            guard thumbnails.succeeded else { throw BenchmarkError("thumbnails exited with \(thumbnails.status)") }
            batch.append(Double(copies) / (thumbnails.wallMilliseconds / 1000))
            batchCPU.append(thumbnails.cpuMilliseconds / Double(copies))
            let (seconds, cpu) = try fleetRun(binary: binary, server: server, round: round, inputs: inputs, names: names,
                                              out: out.appendingPathComponent("fleet"), side: side)
            fleet.append(Double(copies) / seconds)
            fleetCPU.append(cpu * 1000 / Double(copies))
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
        let batchCost = Figure(suite: "fleet", name: "fleet.thumbnails.cpu_per_job.\(scene).\(side)", unit: "ms",
                               sample: Sample(batchCPU), note: "user + system CPU of thumbnails over the jobs", details: details)
        report.add(batchCost)
        report.add(Figure(suite: "fleet", name: "fleet.workers2.cpu_per_job.\(scene).\(side)", unit: "ms", sample: Sample(fleetCPU),
                          baseline: .init(figure: batchCost.name, value: batchCost.sample.median),
                          note: "user + system CPU of both workers (start to exit) and of redis-server over the jobs", details: details))
    }

    /// Queues one job per input on fresh keys, starts two workers and returns the seconds from
    /// their start to the last result, and the CPU seconds the workers and redis-server used.
    private func fleetRun(binary: String, server: RedisServerProcess, round: Int, inputs: URL, names: [String],
                          out: URL, side: Int) throws -> (seconds: Double, cpu: Double) {
        let keys = (jobs: "{bench\(round)}:jobs", results: "{bench\(round)}:results", dead: "{bench\(round)}:dead")
        let redis = RedisClient(url: RedisURL(host: "127.0.0.1", port: server.port))
        defer { redis.close() }
        for name in names {
            let job = #"{"id": "\#(name)", "input": "file://\#(inputs.path)/\#(name)", "options": {"resolution": "\#(side)x\#(side)"},"#
                + #" "outputs": [{"kind": "image", "to": "file://\#(out.path)/\#(name).png"}]}"#
            try redis.add(stream: keys.jobs, fields: [StreamField(FleetWorker.jobField, job)])
        }
        let redisCPU = try redisCPUSeconds(redis)
        let clock = ContinuousClock()
        let start = clock.now
        let workers = try (0..<2).map { k in
            try TestSupport.ChildProcess(binary, ["worker", "--redis", server.urlText, "--consumer", "bench-\(round)-\(k)", "--concurrency", "1",
                                        "--stream", keys.jobs, "--results", keys.results, "--dead", keys.dead],
                               environment: ["PATH": "/usr/bin:/bin"])
        }
        defer { for worker in workers where worker.isRunning { worker.stop(timeout: .seconds(30)) } }
        let deadline = start + .seconds(Double(names.count) * 10 + 60)
        while try redisLength(redis, keys.results) < names.count {
            guard clock.now < deadline, workers.allSatisfy(\.isRunning) else {
                throw BenchmarkError("the fleet did not finish \(names.count) jobs (a worker exited, or past the deadline)")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        let elapsed = Stopwatch.milliseconds(clock.now - start) / 1000
        let served = try redisCPUSeconds(redis) - redisCPU
        for worker in workers { worker.stop(timeout: .seconds(30)) }
        let failed = try redis.range(stream: keys.results, count: names.count + 10).filter { $0["status"] != "ok" }
        guard failed.isEmpty else { throw BenchmarkError("fleet jobs failed: \(failed.prefix(3).map(\.fields))") }
        return (elapsed, workers.reduce(served) { $0 + ($1.cpuSeconds ?? .nan) })
    }

    private func redisLength(_ redis: RedisClient, _ key: String) throws -> Int {
        Int(try redis.command(["XLEN", key]).orThrow("XLEN").integer ?? 0)
    }

    /// `used_cpu_user` + `used_cpu_sys` from `INFO cpu`.
    private func redisCPUSeconds(_ redis: RedisClient) throws -> Double {
        let info = try redis.command(["INFO", "cpu"]).orThrow("INFO").string ?? ""
        return info.split(whereSeparator: \.isNewline).reduce(0) { sum, line in
            let parts = line.split(separator: ":")
            guard parts.count == 2, ["used_cpu_user", "used_cpu_sys"].contains(parts[0]) else { return sum }
            return sum + (Double(parts[1]) ?? 0)
        }
    }
}
