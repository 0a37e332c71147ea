import SplatCore
import SplatFleet
import SplatServe
import SplatService

/// `worker --metrics-listen HOST:PORT`: `/metrics` (Prometheus text) and `/healthz` served by
/// SplatServe's `HTTPServer`, with the fleet's counters beside the process ones. The consumer's
/// counters report every change, and the registry's counters follow them, so a scrape never
/// waits for or misses an update.
///
/// | metric | meaning |
/// |---|---|
/// | `splatrender_jobs_total{status}` | results written (`ok` or an error kind) |
/// | `splatrender_job_attempts_total` | job runs, retries included |
/// | `splatrender_jobs_claimed_total` | entries taken over from stale workers |
/// | `splatrender_jobs_dead_total{reason}` | dead letters (`max_attempts` or an error kind) |
final class WorkerMetrics: Sendable {
    let registry = MetricsRegistry()
    /// Give these to the worker: they feed the families below.
    let counters: StreamConsumerCounters
    let server: HTTPServer

    init(listen: ListenAddress, admission: AdmissionController) {
        let jobs = registry.counter("splatrender_jobs_total", help: "Fleet jobs finished (results written), by status.",
                                    labels: ["status"])
        let attempts = registry.counter("splatrender_job_attempts_total", help: "Fleet job runs, retries included.").unlabelled
        let claimed = registry.counter("splatrender_jobs_claimed_total",
                                       help: "Jobs taken over from workers that stopped extending their lease.").unlabelled
        let dead = registry.counter("splatrender_jobs_dead_total", help: "Jobs given up (dead letters), by reason.",
                                    labels: ["reason"])
        _ = jobs.labels(StreamResultField.ok)
        counters = StreamConsumerCounters { before, after in
            for (status, total) in after.jobsByStatus {
                jobs.labels(status).increment(by: Double(total - before.jobsByStatus[status, default: 0]))
            }
            for (reason, total) in after.deadByReason {
                dead.labels(reason).increment(by: Double(total - before.deadByReason[reason, default: 0]))
            }
            attempts.increment(by: Double(after.attempts - before.attempts))
            claimed.increment(by: Double(after.claimed - before.claimed))
        }
        // No job routes: only what HTTPServer adds itself (/healthz, /readyz, /metrics).
        var configuration = HTTPServer.Configuration(maxBodyBytes: 0)
        configuration.listen = listen
        configuration.ioThreads = 1
        server = HTTPServer(configuration: configuration, router: Router(), admission: admission, metrics: registry,
                            accessLog: nil)
    }

    func start() throws(SplatError) { try server.start() }
    func stop() { server.stop() }
}
