import Foundation
import SplatCore
import SplatFleet
import SplatServe
import SplatService
import Synchronization

/// `splatrender worker --redis URL …`: one worker of a fleet. Settings come from the options
/// (the command line, then `SPLATRENDER_*` variables, then the table's defaults), the work from
/// `FleetWorker`. SIGTERM or SIGINT stops reading and lets running jobs finish (the grace),
/// then the worker exits 0; a second signal exits at once (`SignalCancellation`). Log lines go
/// to standard error.
enum WorkerCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        guard let redis = parsed.text(.redis) else { return context.usage("worker needs --redis URL (or SPLATRENDER_REDIS)") }
        let configuration: StreamConsumerConfiguration
        let runner: JobSpecRunner
        var metrics: WorkerMetrics?
        do throws(SplatError) {
            configuration = try Self.configuration(parsed, redis: redis)
            let admission = AdmissionController(workers: configuration.concurrency, queueLimit: configuration.concurrency,
                                                memoryBudgetBytes: parsed.memoryBudget)
            let roots = try JobLocationRoots(inputRoot: parsed.text(.inputRoot), outputRoot: parsed.text(.outputRoot))
            runner = JobSpecRunner(roots: roots, admission: admission)
            if let listen = parsed.text(.metricsListen) {
                guard let address = ListenAddress(parsing: listen) else {
                    return context.usage("invalid value '\(listen)' for --metrics-listen: expected HOST:PORT, e.g. 127.0.0.1:9464")
                }
                metrics = WorkerMetrics(listen: address, admission: admission)
            }
        } catch {
            return context.usage(error.message)
        }
        // A long-running process: the soft open-file default must not be what fails a job.
        OpenFileLimit.raiseSoftToHard()
        do throws(SplatError) { try metrics?.start() } catch { return context.fail(error, .cannotCreate) }
        defer { metrics?.stop() }

        let errors = LockedOutput(context.stderr)
        let name = configuration.consumer
        let log: @Sendable (String) -> Void = { line in errors.write("worker \(name): \(line)\n") }
        let worker = FleetWorker(configuration: configuration, runner: runner,
                                 counters: metrics?.counters ?? StreamConsumerCounters(), log: log)
        let stopped = StopOnCancellation(context.cancellation) { worker.stop() }
        defer { stopped.finish() }
        var started = "reading \(configuration.stream) as group \(configuration.group) on \(configuration.redis), \(configuration.concurrency) at a time"
        if let port = metrics?.server.port, port > 0 { started += "; metrics on port \(port)" }
        log(started)
        do throws(SplatError) {
            try worker.run()
        } catch {
            return context.fail(error, error.kind == .invalidArgument ? .usage : .internalError)
        }
        log("stopped")
        return ExitCode.ok.rawValue
    }

    /// The consumer's settings from the parsed options; `invalid_argument` for values that
    /// cannot work together.
    static func configuration(_ parsed: ParsedCommand, redis: String) throws(SplatError) -> StreamConsumerConfiguration {
        var c = StreamConsumerConfiguration(redis: try RedisURL(parsing: redis))
        c.stream = parsed.text(.stream) ?? c.stream
        c.group = parsed.text(.group) ?? c.group
        c.results = parsed.text(.results) ?? c.results
        c.dead = parsed.text(.dead) ?? c.dead
        c.consumer = parsed.text(.consumer) ?? c.consumer
        if let seconds = parsed.number(.lease) { c.lease = .nanoseconds(Int64(seconds * 1e9)) }
        c.maxAttempts = parsed.integer(.maxAttempts) ?? c.maxAttempts
        c.concurrency = parsed.integer(.concurrency) ?? c.concurrency
        if let seconds = parsed.number(.grace) { c.grace = .nanoseconds(Int64(seconds * 1e9)) }
        try c.validate()
        return c
    }
}

/// Calls `stop` once `token` is cancelled (the process's signal token), from a thread of its
/// own: the token has no wake-up hook, so the thread looks every 50 ms until `finish`.
final class StopOnCancellation: Sendable {
    private let done = Atomic<Bool>(false)

    init(_ token: CancellationToken, stop: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            while !self.done.load(ordering: .relaxed) {
                if token.isCancelled {
                    stop()
                    return
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    func finish() { done.store(true, ordering: .relaxed) }
}
