import CMicroHTTPD
import Foundation
import Synchronization
import SplatCore
import SplatService

/// The HTTP server behind `splatrender serve`: libmicrohttpd's thread pool does the I/O, an
/// `AdmissionController` decides when jobs start, and a pool of job threads runs them.
///
/// ```swift
/// var router = Router()
/// router.postJob("/v1/render") { request in .start(RenderJob(request), timeout: .seconds(2.5)) }
/// let server = HTTPServer(configuration: config, router: router, admission: admission)
/// let shutdown = ShutdownSignal()                   // SIGTERM/SIGINT from now on
/// try server.start()                                // server.port: the bound port (for port 0)
/// _ = shutdown.wait()
/// let outcome = server.drain(grace: HTTPServer.defaultGrace)   // returns once stopped; exit 0
/// ```
///
/// `/healthz`, `/readyz` and `/metrics` are added to the router given. Start once; `drain` or
/// `stop` once. Thread-safe.
public final class HTTPServer: Sendable {
    /// Server-wide settings; each has a named default.
    public struct Configuration: Sendable {
        public var listen: ListenAddress = .defaultValue
        /// libmicrohttpd I/O threads (each its own epoll loop).
        public var ioThreads: Int = Parallel.processorCount
        /// Open connections accepted at once; more wait in the listen backlog until one closes.
        /// `start` lowers it to what the open-file limit leaves room for (`connectionLimit` on
        /// the server).
        public var connectionLimit: Int = 1024
        /// Seconds a connection may send nothing (between or within requests) before it is
        /// closed; connections whose job is running are exempt.
        public var idleTimeoutSeconds: Int = 30
        /// Largest request body; larger ones are refused with 413 (by `Content-Length` before
        /// any of it is read, by count for chunked bodies).
        public var maxBodyBytes: Int
        /// Every request's deadline, counted from its headers; a request may ask for less.
        public var requestTimeout: Duration = .seconds(ServeDefaults.requestTimeoutSeconds)
        /// Connections the kernel queues before libmicrohttpd accepts them.
        public var listenBacklog: Int = 511

        public init(maxBodyBytes: Int) {
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// How a drain ended.
    public struct DrainOutcome: Sendable, Equatable {
        /// Every request finished within the grace period.
        public var finishedInGrace: Bool
        /// Jobs cancelled because the grace period ran out.
        public var cancelledJobs: Int
    }

    public let configuration: Configuration
    public let admission: AdmissionController
    public let metrics: MetricsRegistry
    /// The families registered on `metrics`, for tests and for adding to them.
    public let serverMetrics: ServerMetrics
    private let core: ServerCore
    private let daemon = Mutex<MHDDaemon?>(nil)
    private let boundPort = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// A server that is not listening yet. `router` gets `/healthz`, `/readyz` and `/metrics`.
    public init(configuration: Configuration, router: Router, admission: AdmissionController,
                metrics: MetricsRegistry = MetricsRegistry(), accessLog: (any AccessLogSink)? = StandardErrorAccessLog()) {
        self.configuration = configuration
        self.admission = admission
        self.metrics = metrics
        let state = ServerState()
        serverMetrics = ServerMetrics(registry: metrics, admission: admission, inFlight: { state.activeCount },
                                      connectionLimit: { state.connectionLimit.load(ordering: .relaxed) })
        var routes = router
        OperationalRoutes.install(on: &routes, metrics: metrics, admission: admission) { state.draining.load(ordering: .relaxed) }
        core = ServerCore(state: state, router: routes, admission: admission, metrics: serverMetrics, accessLog: accessLog,
                          settings: configuration)
    }

    deinit { stop() }

    /// Binds and starts serving. Throws `io` when the address cannot be bound (in use, not
    /// permitted) and `invalid_argument` for a host that is not a numeric address.
    public func start() throws(SplatError) {
        guard daemon.withLock({ $0 == nil }), !stopped.load(ordering: .acquiring) else {
            throw SplatError(.invalidArgument, "the server was already started")
        }
        // Connections that took every descriptor would leave none for jobs and `/metrics`, and
        // libmicrohttpd, refused one by `accept`, stopped serving new clients even after they
        // went (`ServeOpenFilesEndToEndTests`): stop accepting before that instead.
        let connections = OpenFileLimit.connectionCapacity(configured: configuration.connectionLimit,
                                                           softLimit: OpenFileLimit.current?.soft ?? Int.max,
                                                           jobPlaces: admission.workers + admission.queueLimit)
        let options = MHDDaemon.Options(listen: configuration.listen, ioThreads: configuration.ioThreads,
                                        connectionLimit: connections,
                                        idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                                        listenBacklog: configuration.listenBacklog)
        let started = try MHDDaemon(options: options, handler: Self.accessHandler, completed: Self.completedHandler,
                                    context: Unmanaged.passUnretained(core).toOpaque())
        core.state.connectionLimit.store(connections, ordering: .releasing)
        boundPort.store(started.port, ordering: .releasing)
        daemon.withLock { $0 = started }
    }

    /// The port listened on (the system's choice when configured with 0); 0 before `start`.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// The connections accepted at once since `start`: the configured limit, lowered to what
    /// the open-file limit leaves after the server's own descriptors
    /// (`OpenFileLimit.connectionCapacity`); 0 before `start`.
    public var connectionLimit: Int { core.state.connectionLimit.load(ordering: .acquiring) }

    /// Whether a drain has begun (`/readyz` answers 503 from then on).
    public var isDraining: Bool { core.state.draining.load(ordering: .relaxed) }

    /// Requests between their headers and their completion.
    public var activeRequests: Int { core.state.activeCount }

    /// The first step of a drain, on its own for callers that wait themselves: `/readyz` turns
    /// 503, new connections are refused, new jobs on open connections get 503, responses
    /// carry `Connection: close`. Requests already in progress carry on.
    public func beginDrain() {
        core.state.draining.store(true, ordering: .relaxed)
        daemon.withLock { $0?.quiesce() }
    }

    /// Graceful shutdown: `beginDrain`, then wait up to `grace` for every request to finish;
    /// past it, cancel the jobs still running (they answer 503) and stop. Blocks until stopped.
    public func drain(grace: Duration) -> DrainOutcome {
        beginDrain()
        let finished = waitForIdle(upTo: grace)
        let cancelled = finished ? 0 : core.cancelAll()
        stop()
        return DrainOutcome(finishedInGrace: finished, cancelledJobs: cancelled)
    }

    /// Stops now: cancels running jobs, gives them a moment to answer (then answers 503 for
    /// them), closes every connection and joins the I/O threads. Safe to call more than once.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        beginDrain()
        _ = core.cancelAll()
        // Cancelled jobs stop at their next check (milliseconds); give their answers a moment
        // to go out, then answer for any job that has not returned.
        _ = waitForIdle(upTo: Self.cancelledJobWait)
        core.abandonRunning()
        _ = waitForIdle(upTo: Self.cancelledJobWait)
        daemon.withLock { daemon in
            daemon?.stop()
            daemon = nil
        }
        core.watcher?.stop()
        core.pool.shutdown(timeout: Self.cancelledJobWait)
    }

    /// The grace period `splatrender serve` gives in-flight requests on SIGTERM (`--grace`).
    public static let defaultGrace: Duration = .seconds(ServeDefaults.graceSeconds)

    /// How long `stop` waits for cancelled jobs' answers before answering for them, and for
    /// job threads to exit.
    static let cancelledJobWait: Duration = .seconds(1)

    private func waitForIdle(upTo limit: Duration) -> Bool {
        let deadline = ContinuousClock.now + limit
        while core.state.activeCount > 0 {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return true
    }

    // libmicrohttpd's callbacks: plain C functions that find the core through their context.
    private static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, data, size, context in
        guard let cls, let connection, let size, let context else { return .NO }
        return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
            .handle(connection, url: url, method: method, data: data, size: size, context: context)
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { cls, _, context, code in
        guard let cls, let context else { return }
        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().completed(context, code)
    }
}
