import SplatService

/// `GET /healthz`, `GET /readyz` and `GET /metrics`: answered on the I/O thread, never queued
/// behind jobs, so a load balancer and a scraper get answers while every worker is busy.
enum OperationalRoutes {
    static func install(on router: inout Router, metrics: MetricsRegistry, admission: AdmissionController,
                        isDraining: @escaping @Sendable () -> Bool) {
        // Liveness: the process runs and its I/O threads answer. Nothing else is checked, so a
        // busy server is never restarted for being busy.
        router.get("/healthz") { _ in .text("ok\n") }
        // Readiness: whether to send this instance more work.
        router.get("/readyz") { _ in
            if isDraining() { return .text("draining\n", status: 503) }
            if admission.snapshot.isSaturated { return .text("busy: every worker and queue place is taken\n", status: 503) }
            return .text("ready\n")
        }
        router.get("/metrics") { _ in
            HTTPResponse(status: 200, headers: [("Content-Type", PrometheusText.contentType)], body: Array(metrics.exposition().utf8))
        }
    }
}
