import SplatCore
import SplatService

/// Everything `splatrender serve` runs with, from its options (the command line, then the
/// `SPLATRENDER_*` variables, then `ServeDefaults`): the HTTP settings, the admission limits,
/// what each request is held to, the drain's grace and whether to log.
public struct ServeConfiguration: Sendable {
    public var http: HTTPServer.Configuration
    public var workers: Int
    public var queue: Int
    public var scene: SceneServiceSettings
    public var grace: Duration
    /// No access log.
    public var quiet: Bool

    /// The configuration `parsed` (a `serve` command line) describes; `invalid_argument` for a
    /// `--listen` that is not HOST:PORT.
    public init(_ parsed: ParsedCommand) throws(SplatError) {
        let listenText = parsed.text(.listen) ?? ServeDefaults.listen
        guard let listen = ListenAddress(parsing: listenText) else {
            throw SplatError(.invalidArgument, "invalid value '\(listenText)' for --listen: expected HOST:PORT, e.g. 127.0.0.1:8080, [::1]:8080 or :8080",
                             field: "listen")
        }
        scene = SceneServiceSettings(limits: parsed.loadOptions.limits, memoryBudgetBytes: parsed.memoryBudget,
                                     maxBodyBytes: parsed.integer(.maxBodyBytes))
        http = HTTPServer.Configuration(maxBodyBytes: scene.maxBodyBytes)
        http.listen = listen
        http.requestTimeout = Self.duration(parsed.number(.requestTimeout) ?? ServeDefaults.requestTimeoutSeconds)
        workers = parsed.integer(.workers) ?? ServeDefaults.workers
        queue = parsed.integer(.queue) ?? ServeDefaults.queue(workers: workers)
        grace = Self.duration(parsed.number(.grace) ?? ServeDefaults.graceSeconds)
        quiet = parsed.flag(.quiet)
    }

    /// A server with the job routes, not started yet. `accessLog` replaces standard error
    /// (tests); `--quiet` drops it either way.
    public func makeServer(accessLog: (any AccessLogSink)? = StandardErrorAccessLog()) -> HTTPServer {
        HTTPServer(configuration: http, router: SceneRoutes.router(settings: scene),
                   admission: AdmissionController(workers: workers, queueLimit: queue, memoryBudgetBytes: scene.memoryBudgetBytes),
                   accessLog: quiet ? nil : accessLog)
    }

    static func duration(_ seconds: Double) -> Duration { .nanoseconds(Int64((seconds * 1e9).rounded())) }
}
