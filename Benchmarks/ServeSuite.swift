import Foundation
import Synchronization
import SplatCore
import SplatFormats
import SplatRender
import SplatService
import TestSupport

/// `splatrender serve` under load: thumbnails (one 256² PNG per request) of one scene from the
/// release server on 127.0.0.1, beside the same `SceneJob`s run in this process at the same
/// concurrency — the floor the server should come close to (target: ≥ 90 % of its
/// throughput) — and the latency at 1, 2 and 4 concurrent clients. The server gets the
/// machine's cores as workers, as by default; clients keep one connection each. Rounds
/// alternate between the two, so a change of load during the run hits both alike.
///
/// CPU per request is reported beside the rates (the server's from /proc/PID/stat, this
/// process's for the in-process jobs and for the clients): on a shared machine it moves less
/// with the other tenants than the wall time does.
struct ServeSuite {
    let report: Report
    let smoke: Bool

    static let resolution = 256
    static let throughputTarget = 0.9
    /// The query and the job of one thumbnail.
    static var query: String { "/v1/render?resolution=\(resolution)x\(resolution)" }

    func run(binary: String, input: String, scene: String) throws {
        report.progress("serve: \(binary) serve, \(Self.resolution)² thumbnails of \(input)")
        let body = Array(try Data(contentsOf: URL(fileURLWithPath: input)))
        let expected = try Self.thumbnail(body)
        let requests = smoke ? 8 : 40, runs = smoke ? 1 : 3
        let details: [(String, JSONScalar)] = [("input", .string(input)), ("file_bytes", .int(body.count)),
                                               ("width", .int(Self.resolution)), ("requests", .int(requests)),
                                               ("workers", .int(Parallel.processorCount)), ("clients", .int(2))]

        let server = try TestSupport.ChildProcess(binary, ["serve", "--listen", "127.0.0.1:0", "--quiet", "--workers", String(Parallel.processorCount)])
        defer { server.stop(timeout: .seconds(20)) }
        guard let line = server.waitForLine(timeout: .seconds(30), { $0.hasPrefix("listening on ") }),
              let port = line.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw BenchmarkError("\(binary) serve did not start")
        }
        // The server's answer must be the job's bytes; a harness failure otherwise.
        let first = try BenchHTTPClient(port: port).post(Self.query, body: body)
        guard first.status == 200, first.body == expected else {
            throw BenchmarkError("the server answered \(first.status) with \(first.body.count) bytes, not the job's \(expected.count)")
        }

        // Round 0 warms both up (page cache, allocator, the server's first connections).
        var local: [Measured] = [], served: [Measured] = []
        for round in 0...runs {
            let inProcess = try Self.measure(requests: requests, server: nil) {
                try Self.throughput(clients: 2, requests: requests, port: 0) { _ in _ = try Self.thumbnail(body) }
            }
            let http = try Self.measure(requests: requests, server: server.pid) {
                try Self.throughput(clients: 2, requests: requests, port: port) { box in
                    try Self.expectImage(box.client.post(Self.query, body: body))
                }
            }
            if round > 0 { local.append(inProcess); served.append(http) }
        }
        let inProcess = Sample(local.map(\.rate))
        report.add(Figure(suite: "serve", name: "serve.\(scene).\(Self.resolution).in_process.c2", unit: "req/s", sample: inProcess,
                          note: "SceneJob on the file's bytes in this process, 2 threads back to back (the floor)", details: details))
        var figure = Figure(suite: "serve", name: "serve.\(scene).\(Self.resolution).http.c2", unit: "req/s", sample: Sample(served.map(\.rate)),
                            note: "POST \(Self.query) from 2 keep-alive clients; ratio = share of the in-process throughput",
                            details: details)
        figure.baseline = .init(figure: "serve.\(scene).\(Self.resolution).in_process.c2", value: inProcess.median)
        figure.target = .init(text: String(format: "≥ %.0f %% of in-process", Self.throughputTarget * 100),
                              met: figure.ratio.map { $0 >= Self.throughputTarget })
        report.add(figure)
        let localCost = Sample(local.map(\.ownCPU))
        report.add(Figure(suite: "serve", name: "serve.\(scene).\(Self.resolution).in_process.cpu_per_request", unit: "ms",
                          sample: localCost, note: "user + system CPU of this process per in-process job", details: details))
        report.add(Figure(suite: "serve", name: "serve.\(scene).\(Self.resolution).http.cpu_per_request", unit: "ms",
                          sample: Sample(served.map(\.serverCPU)),
                          baseline: .init(figure: "serve.\(scene).\(Self.resolution).in_process.cpu_per_request", value: localCost.median),
                          note: String(format: "user + system CPU of the server per request (the clients: %.2f ms more)",
                                       Sample(served.map(\.ownCPU)).median),
                          details: details))

        for clients in [1, 2, 4] {
            let latencies = try Self.latencies(clients: clients, each: smoke ? 2 : max(6, 24 / clients), port: port, body: body)
            let p99 = Self.percentile(latencies, 0.99)
            report.add(Figure(suite: "serve", name: "serve.\(scene).\(Self.resolution).latency.c\(clients)", unit: "ms",
                              sample: Sample(latencies),
                              note: String(format: "p50 %.0f ms, p99 %.0f ms (nearest rank of %d requests) at ", Sample(latencies).median, p99,
                                           latencies.count) + (clients == 1 ? "1 client" : "\(clients) concurrent clients"),
                              details: details.filter { $0.0 != "clients" } + [("clients", .int(clients)), ("p99_ms", .double(p99))]))
        }
    }

    /// One round's requests per second and CPU milliseconds per request: this process's and,
    /// when the work went to a server, the server's.
    struct Measured {
        var rate: Double
        var ownCPU: Double
        var serverCPU: Double
    }

    static func measure(requests: Int, server: pid_t?, _ body: () throws -> Double) throws -> Measured {
        let own = Stopwatch.cpuMilliseconds(), other = server.map(cpuMilliseconds(of:)) ?? 0
        let rate = try body()
        let serverCPU = server.map { cpuMilliseconds(of: $0) - other } ?? 0
        return Measured(rate: rate, ownCPU: (Stopwatch.cpuMilliseconds() - own) / Double(requests),
                        serverCPU: serverCPU / Double(requests))
    }

    /// User + system CPU of a running process (all its threads): fields 14 and 15 of
    /// /proc/PID/stat, in clock ticks. The command name (field 2) may hold spaces, so fields
    /// are counted after its closing parenthesis.
    static func cpuMilliseconds(of pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// One thumbnail as the server makes it: a `SceneJob` on the bytes, PNG for the caller.
    static func thumbnail(_ body: [UInt8]) throws -> [UInt8] {
        let input = body.withUnsafeBytes { InputBytes(copying: $0, name: "bench") }
        var job = SceneJob(command: "serve", input: .memory(input),
                           view: ViewRequest(settings: RenderSettings(width: resolution, height: resolution)), image: .caller)
        job.memoryBudget = ServeDefaults.memoryBudgetBytes
        let outcome = job.run()
        guard let bytes = outcome.imageBytes else { throw BenchmarkError("the in-process job failed: \(String(describing: outcome.report.error))") }
        return bytes
    }

    static func expectImage(_ answer: (status: Int, body: [UInt8])) throws {
        guard answer.status == 200, !answer.body.isEmpty else { throw BenchmarkError("the server answered \(answer.status)") }
    }

    /// Requests per second when `clients` threads share `requests` calls of `work`.
    static func throughput(clients: Int, requests: Int, port: Int,
                           _ work: @escaping @Sendable (BenchHTTPClientBox) throws -> Void) throws -> Double {
        let next = Atomic<Int>(0)
        let failure = Mutex<Error?>(nil)
        let start = ContinuousClock.now
        try onThreads(clients, port: port) { box in
            while next.add(1, ordering: .relaxed).oldValue < requests {
                do { try work(box) } catch { failure.withLock { $0 = error }; return }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return Double(requests) / (Stopwatch.milliseconds(ContinuousClock.now - start) / 1000)
    }

    /// Every request's time in milliseconds, `each` requests from each of `clients` clients.
    static func latencies(clients: Int, each: Int, port: Int, body: [UInt8]) throws -> [Double] {
        let all = Mutex<[Double]>([])
        let failure = Mutex<Error?>(nil)
        try onThreads(clients, port: port) { box in
            for _ in 0..<each {
                let start = ContinuousClock.now
                do { try expectImage(box.client.post(query, body: body)) } catch { failure.withLock { $0 = error }; return }
                let ms = Stopwatch.milliseconds(ContinuousClock.now - start)
                all.withLock { $0.append(ms) }
            }
        }
        if let error = failure.withLock({ $0 }) { throw error }
        return all.withLock { $0 }
    }

    /// Runs `body` on `count` threads at once, each with its own client, and waits for all.
    static func onThreads(_ count: Int, port: Int, _ body: @escaping @Sendable (BenchHTTPClientBox) -> Void) throws {
        let group = DispatchGroup()
        for _ in 0..<count {
            group.enter()
            let box = BenchHTTPClientBox(client: BenchHTTPClient(port: port))
            Thread.detachNewThread {
                body(box)
                group.leave()
            }
        }
        guard group.wait(timeout: .now() + 900) == .success else { throw BenchmarkError("clients still running after 15 minutes") }
    }

    /// The value at fraction `p` of the sorted values (nearest rank).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
    }
}

/// A client handed to one thread (each thread uses only its own).
final class BenchHTTPClientBox: @unchecked Sendable {
    let client: BenchHTTPClient
    init(client: BenchHTTPClient) { self.client = client }
}
