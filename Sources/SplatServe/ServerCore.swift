import CMicroHTTPD
import Synchronization
import SplatCore
import SplatService

/// What libmicrohttpd's callbacks call into: turns its access-handler calls (headers, body
/// pieces, end of request, resumption) into routing, streaming, admission and jobs, and its
/// completion callback into the log line and the metrics. The I/O half lives here; jobs,
/// completion and draining are in `ServerCore+Jobs.swift`.
final class ServerCore: Sendable {
    let state: ServerState
    let router: Router
    let admission: AdmissionController
    let metrics: ServerMetrics
    let accessLog: (any AccessLogSink)?
    let settings: HTTPServer.Configuration
    let pool: JobThreadPool
    let watcher: DisconnectWatcher?

    init(state: ServerState, router: Router, admission: AdmissionController, metrics: ServerMetrics, accessLog: (any AccessLogSink)?, settings: HTTPServer.Configuration) {
        self.state = state
        self.router = router
        self.admission = admission
        self.metrics = metrics
        self.accessLog = accessLog
        self.settings = settings
        // Every job holds an admission place before it reaches the pool (see JobThreadPool).
        pool = JobThreadPool(limit: admission.workers + admission.queueLimit, name: "splat-job")
        watcher = DisconnectWatcher()
    }

    // MARK: - The access handler

    /// One access-handler call: the first (headers), a piece of the body, or the end of the
    /// request (also after a resumption).
    func handle(_ raw: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
                context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let opaque = context.pointee else {
            return begin(MHDConnection(raw: raw), url: url, method: method, context: context)
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(opaque).takeUnretainedValue()
        if size.pointee > 0 {
            guard let data else { return .NO }
            let chunk = UnsafeRawBufferPointer(start: data, count: size.pointee)
            size.pointee = 0
            return receive(chunk, exchange)
        }
        return complete(exchange)
    }

    /// What a request becomes once its headers are in.
    private enum Plan {
        case refuse(HTTPResponse)
        case immediate(@Sendable (HTTPRequest) -> HTTPResponse)
        case job(any JobHandler, budget: Duration)
    }

    /// The first call: reads the request line and headers, routes the request, creates and
    /// registers its exchange (held by libmicrohttpd's per-request pointer) and starts it.
    private func begin(_ connection: MHDConnection, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                       context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let headers = connection.values(.HEADER_KIND)
        let sentID = headers.first { $0.name.lowercased() == "x-request-id" }?.value
        let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "",
                                  path: url.map { String(cString: $0) } ?? "/",
                                  query: connection.values(.GET_ARGUMENT_KIND), headers: headers,
                                  requestID: RequestID.resolve(sentID))
        let match = router.match(method: request.method, path: request.path)
        let route: String
        switch match {
        case .found(let path, _), .methodNotAllowed(let path, _): route = path
        case .notFound: route = "unmatched"
        }
        let plan = plan(request, match)
        var budget = settings.requestTimeout
        if case .job(_, let asked) = plan { budget = asked }
        let exchange = Exchange(request: request, route: route, connection: connection,
                                token: CancellationToken(budget: budget, start: request.receivedAt))
        state.registry.withLock { $0.exchanges[ObjectIdentifier(exchange)] = exchange }
        context.pointee = Unmanaged.passRetained(exchange).toOpaque()
        switch plan {
        case .refuse(let response):
            return refuseAtHeaders(exchange, response)
        case .immediate(let respond):
            exchange.phase = .immediate(respond)
        case .job(let handler, _):
            exchange.handler = handler
            exchange.phase = .receiving
        }
        return .YES
    }

    private func plan(_ request: HTTPRequest, _ match: Router.Match) -> Plan {
        switch match {
        case .notFound:
            return .refuse(.error(status: 404, kind: ServeErrorKind.notFound, message: "no route for \(request.path)"))
        case .methodNotAllowed(_, let allowed):
            var response = HTTPResponse.error(status: 405, kind: ServeErrorKind.methodNotAllowed,
                                              message: "\(request.path) accepts \(allowed.joined(separator: ", ")), not \(request.method)")
            response.headers.append(("Allow", allowed.joined(separator: ", ")))
            return .refuse(response)
        case .found(_, .immediate(let respond)):
            return .immediate(respond)
        case .found(_, .job(let factory)):
            if state.draining.load(ordering: .relaxed) {
                return .refuse(.error(status: 503, kind: ServeErrorKind.draining, message: "the server is shutting down and takes no new jobs"))
            }
            if let length = request.contentLength, length > settings.maxBodyBytes {
                return .refuse(bodyTooLarge(length))
            }
            switch factory(request) {
            case .refuse(let response):
                return .refuse(response)
            case .start(let handler, let timeout):
                return .job(handler, budget: min(timeout ?? settings.requestTimeout, settings.requestTimeout))
            }
        }
    }

    /// A piece of the body.
    private func receive(_ chunk: UnsafeRawBufferPointer, _ exchange: Exchange) -> MHD_Result {
        exchange.bytesIn += chunk.count
        switch exchange.phase {
        case .receiving:
            break
        case .discarding(pending: nil):
            // The refusal went out early. Keep reading (and dropping) for a while, as nginx's
            // lingering close does: closing with the client's bytes unread sends a reset, and
            // a client still busy uploading can lose the answer it had not read yet.
            guard let refusedAt = exchange.refusedAt else { return .NO }
            return ContinuousClock.now - refusedAt > Self.lingerLimit ? .NO : .YES
        case .discarding, .immediate, .running, .answered:
            // Bodies nobody reads are dropped; past the cap, stop reading and close.
            return exchange.bytesIn > settings.maxBodyBytes ? .NO : .YES
        }
        if exchange.bytesIn > settings.maxBodyBytes {
            return refuseMidUpload(exchange, bodyTooLarge(nil))
        }
        if let reason = exchange.token.reason {
            let error = exchange.token.error(for: reason, at: "while the body was uploading (\(exchange.bytesIn) bytes in)")
            return refuseMidUpload(exchange, .error(error))
        }
        guard let handler = exchange.handler else { return .YES }
        switch handler.receive(chunk) {
        case .proceed:
            return .YES
        case .admit(let bytes):
            guard exchange.waiter == nil else { return .YES }
            do {
                exchange.waiter = try admission.enqueue(estimatedBytes: bytes, cancellation: exchange.token)
                return .YES
            } catch {
                return refuseMidUpload(exchange, .refusal(error))
            }
        case .refuse(let response):
            return refuseMidUpload(exchange, response)
        }
    }

    /// The request is complete (or the connection was resumed after its job).
    private func complete(_ exchange: Exchange) -> MHD_Result {
        switch exchange.phase {
        case .immediate(let respond):
            return queue(respond(exchange.request), on: exchange)
        case .discarding(let pending):
            // nil: the refusal went out early; close rather than read another request.
            guard let pending else { return .NO }
            return queue(pending, on: exchange)
        case .receiving:
            return startJob(exchange)
        case .running:
            guard let (response, queueWait) = exchange.takeDelivered() else { return .YES }
            exchange.queueWait = queueWait
            // The client hung up while the job ran: nobody reads an answer, close instead.
            if exchange.clientGone.load(ordering: .relaxed) {
                exchange.sent = response
                exchange.phase = .answered
                return .NO
            }
            return queue(response, on: exchange)
        case .answered:
            return .YES
        }
    }

    // MARK: - Answers

    /// Refuses before any of the body is read. Without a body the answer waits for the end of
    /// the request, which keeps the connection open for the next one. A client that sent
    /// `Expect: 100-continue` is answered through libmicrohttpd now, instead of the 100, and
    /// never sends its body. Any other body is already on its way: the answer is written at
    /// once as a mid-upload refusal, because libmicrohttpd's own early answer closes the
    /// connection with the body unread, and the reset that close sends can destroy the answer
    /// before the client reads it.
    func refuseAtHeaders(_ exchange: Exchange, _ response: HTTPResponse) -> MHD_Result {
        releaseJob(exchange)
        let request = exchange.request
        guard request.hasBody else {
            exchange.phase = .discarding(pending: response)
            return .YES
        }
        if request.header("Expect")?.lowercased() == "100-continue" {
            return queue(response, on: exchange)
        }
        return refuseMidUpload(exchange, response)
    }

    /// Refuses while the body arrives (see `EarlyResponseWriter` for why it bypasses
    /// libmicrohttpd); the rest of the body is dropped.
    func refuseMidUpload(_ exchange: Exchange, _ response: HTTPResponse) -> MHD_Result {
        releaseJob(exchange)
        switch EarlyResponseWriter.send(response, headers: headers(for: response, exchange), fd: exchange.connection.socket) {
        case .sent:
            exchange.sent = response
            exchange.sentEarly = true
            exchange.refusedAt = .now
            exchange.phase = .discarding(pending: nil)
            return .YES
        case .unsent:
            exchange.phase = .discarding(pending: response)
            return .YES
        case .broken:
            exchange.phase = .answered
            return .NO
        }
    }

    /// Hands `response` to libmicrohttpd; a failure closes the connection.
    func queue(_ response: HTTPResponse, on exchange: Exchange) -> MHD_Result {
        exchange.phase = .answered
        exchange.sent = response
        return exchange.connection.queue(response, headers: headers(for: response, exchange)) ? .YES : .NO
    }

    /// The response's headers plus the server's: `X-Request-Id`, `Server-Timing` from the
    /// stages, and `Connection: close` while draining (so keep-alive clients reconnect elsewhere).
    func headers(for response: HTTPResponse, _ exchange: Exchange) -> [(name: String, value: String)] {
        var all = response.headers
        all.append(("X-Request-Id", exchange.request.requestID))
        if !response.stageDurations.isEmpty, response.header("Server-Timing") == nil {
            let timing = response.stageDurations.map { "\($0.stage);dur=\(AccessLogEntry.milliseconds($0.duration))" }
            all.append(("Server-Timing", timing.joined(separator: ", ")))
        }
        if state.draining.load(ordering: .relaxed) { all.append(("Connection", "close")) }
        return all
    }

    /// How long the rest of a refused upload is read and dropped before the connection is closed.
    static let lingerLimit: Duration = .seconds(5)

    func bodyTooLarge(_ declared: Int?) -> HTTPResponse {
        let size = declared.map { "a body of \($0) bytes" } ?? "the body"
        return .error(status: 413, kind: ServeErrorKind.bodyTooLarge,
                      message: "\(size) exceeds the limit of \(settings.maxBodyBytes) bytes (--max-body-bytes)")
    }

    /// Drops a refused job's handler, place in the queue and token.
    func releaseJob(_ exchange: Exchange) {
        exchange.waiter?.withdraw()
        exchange.waiter = nil
        exchange.handler = nil
        exchange.token.cancel(.cancelled)
    }
}

/// What the server's parts share: the live exchanges and the draining flag. Made first, so
/// the metrics and the readiness route can read it before the core exists.
final class ServerState: Sendable {
    /// The exchanges alive now, and whether jobs may still start (false once a drain ran out
    /// of grace or the server stops). One lock, so a job either starts before `stopping` is
    /// set — and is then found by whoever abandons running jobs — or not at all.
    struct Registry {
        var exchanges: [ObjectIdentifier: Exchange] = [:]
        var stopping = false
    }

    let registry = Mutex(Registry())
    /// Set by `beginDrain`: readiness fails, new jobs are refused, responses close connections.
    let draining = Atomic<Bool>(false)
    /// The connection limit `start` settled on; 0 before.
    let connectionLimit = Atomic<Int>(0)

    var activeCount: Int { registry.withLock { $0.exchanges.count } }
}
