import SplatService

/// The families `splatrender serve` exposes, registered once on the server's registry. Label
/// values come from fixed sets: routes are the registered paths (or `unmatched`), codes the
/// statuses we send (plus 499 for a client gone before its response was complete), stages the
/// job's stage names, reasons `ErrorStatus.rejectionReasons`.
public struct ServerMetrics: Sendable {
    /// `splatrender_requests_total{route,code}`: requests finished.
    public let requests: CounterFamily
    /// `splatrender_request_duration_seconds{route}`: headers in to response out.
    public let requestDuration: HistogramFamily
    /// `splatrender_stage_duration_seconds{stage}`: queue wait and each job stage.
    public let stageDuration: HistogramFamily
    /// `splatrender_rejected_total{reason}`: busy, too_large, timeout, bad_request, body_too_large.
    public let rejected: CounterFamily
    /// `splatrender_splats_decoded_total`.
    public let splatsDecoded: Counter

    /// The stages every job reports, created up front so each series exists before the first job.
    public static let stages = ["queue", "decode", "prepare", "render", "encode"]

    /// Registers every family on `registry`; the sampled ones read `admission`, `inFlight` and
    /// `connectionLimit` at each scrape.
    init(registry: MetricsRegistry, admission: AdmissionController, inFlight: @escaping @Sendable () -> Int,
         connectionLimit: @escaping @Sendable () -> Int) {
        requests = registry.counter("splatrender_requests_total", help: "HTTP requests finished, by route and status code.",
                                    labels: ["route", "code"])
        requestDuration = registry.histogram("splatrender_request_duration_seconds",
                                             help: "Time from a request's headers to its last response byte, by route.",
                                             labels: ["route"])
        stageDuration = registry.histogram("splatrender_stage_duration_seconds",
                                           help: "Time jobs spent waiting in the admission queue and in each stage.",
                                           labels: ["stage"])
        rejected = registry.counter("splatrender_rejected_total", help: "Requests refused, by reason.", labels: ["reason"])
        splatsDecoded = registry.counter("splatrender_splats_decoded_total", help: "Splats decoded by finished jobs.").unlabelled
        registry.sampledGauge("splatrender_in_flight_requests", help: "HTTP requests between their headers and their completion.") {
            Double(inFlight())
        }
        registry.sampledGauge("splatrender_connection_limit",
                              help: "Connections accepted at once: the configured limit, or fewer when the open-file limit leaves less room.") {
            Double(connectionLimit())
        }
        registry.sampledGauge("splatrender_jobs_running", help: "Jobs holding a worker slot.") {
            Double(admission.snapshot.inFlight)
        }
        registry.sampledGauge("splatrender_queue_depth", help: "Jobs waiting for a worker and a memory reservation.") {
            Double(admission.snapshot.queued)
        }
        registry.sampledGauge("splatrender_memory_budget_bytes", help: "Bytes the running jobs' estimated peaks may add up to.") {
            Double(admission.memoryBudgetBytes)
        }
        registry.sampledGauge("splatrender_memory_reserved_bytes", help: "Bytes reserved by the running jobs' estimated peaks.") {
            Double(admission.snapshot.reservedBytes)
        }
        ProcessMetrics.register(on: registry)
        for stage in Self.stages { _ = stageDuration.labels(stage) }
        for reason in ErrorStatus.rejectionReasons { _ = rejected.labels(reason) }
    }
}
