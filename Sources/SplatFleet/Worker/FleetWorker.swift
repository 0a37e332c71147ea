import SplatCore
import SplatService

/// `splatrender worker`'s engine: a `StreamConsumer` whose handler runs each entry's `job`
/// field (the job schema, `JobSpec`) with a `JobSpecRunner`. The runner stores the outputs
/// before the handler returns, so the consumer's order — outputs durable, result, dead letter,
/// acknowledgement — holds for every job.
///
/// Every result carries `id` (the job's own, empty when the job had none) and `report` (the
/// job's report as one JSON line, the same object a `thumbnails` report line is). Failures the
/// runner calls transient stay pending for another attempt; all others are dead at once.
public final class FleetWorker: Sendable {
    /// The entry field that holds the job's JSON.
    public static let jobField = "job"

    public let consumer: StreamConsumer
    public let runner: JobSpecRunner

    /// A worker reading per `configuration`; nothing connects until `run`.
    /// - Parameters:
    ///   - counters: the consumer's totals (give one with an observer to feed metrics).
    ///   - log: one line per finished job and per notable consumer event.
    public init(configuration: StreamConsumerConfiguration, runner: JobSpecRunner,
                counters: StreamConsumerCounters = StreamConsumerCounters(),
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.runner = runner
        consumer = StreamConsumer(configuration: configuration,
                                  abandonedFields: { entry in [StreamField("id", JobSpecParser.id(in: entry[Self.jobField] ?? "") ?? "")] },
                                  counters: counters, log: log) { entry, delivery in
            Self.handle(entry, delivery, runner: runner, log: log)
        }
    }

    /// Consumes until `stop` (returns) or a Redis error no retry can cure (throws it).
    public func run() throws(SplatError) { try consumer.run() }

    /// Stops reading; running jobs get the grace to finish. Safe from any thread.
    public func stop() { consumer.stop() }

    /// Runs one entry's job under the delivery's token (cancelled when the grace runs out or
    /// another worker took the entry over).
    static func handle(_ entry: StreamEntry, _ delivery: StreamDelivery, runner: JobSpecRunner,
                       log: @Sendable (String) -> Void) -> StreamOutcome {
        let outcome: JobSpecOutcome
        if let text = entry[jobField] {
            outcome = runner.run(text: text, cancellation: delivery.cancellation)
        } else {
            outcome = runner.refused(SplatError(.badJob, "the entry has no \"\(jobField)\" field"), text: "")
        }
        let report = outcome.report
        let fields = [StreamField("id", outcome.id ?? ""), StreamField("report", report.jsonLine)]
        let time = StageTimings.format(report.totalMilliseconds ?? 0)
        var line = "job \(outcome.id ?? "?") (entry \(entry.id), attempt \(delivery.attempt)): \(report.status) in \(time) ms"
        if let error = outcome.error { line += (outcome.isTransient ? " (transient) " : " ") + error.description }
        log(line)
        guard let error = outcome.error else { return .done(fields: fields) }
        return outcome.isTransient ? .transientFailure(error, fields: fields) : .permanentFailure(error, fields: fields)
    }
}
