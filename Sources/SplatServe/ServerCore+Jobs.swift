import CMicroHTTPD
import Foundation
import SplatCore
import SplatService

/// What a job thread takes over from the I/O thread: the handler, the admission place and the
/// token. The handler is dropped before the ticket is released, so the memory it holds (the
/// body, the decoded scene) is gone before its reservation is handed to the next job.
final class JobRun: @unchecked Sendable {
    var handler: (any JobHandler)?
    let waiter: AdmissionWaiter
    let token: CancellationToken

    init(handler: any JobHandler, waiter: AdmissionWaiter, token: CancellationToken) {
        self.handler = handler
        self.waiter = waiter
        self.token = token
    }
}

extension ServerCore {
    /// The body is complete: take an admission place (unless the handler already did),
    /// suspend the connection and hand the job to a job thread.
    func startJob(_ exchange: Exchange) -> MHD_Result {
        let token = exchange.token
        guard let handler = exchange.handler else {
            return queue(.error(status: 500, kind: ServeErrorKind.internalError, message: "the job lost its handler"), on: exchange)
        }
        var estimate = 0
        switch handler.bodyComplete() {
        case .refuse(let response):
            releaseJob(exchange)
            return queue(response, on: exchange)
        case .admit(let bytes): estimate = bytes
        case .proceed: break
        }
        let waiter: AdmissionWaiter
        if let early = exchange.waiter {
            waiter = early
        } else {
            do {
                waiter = try admission.enqueue(estimatedBytes: estimate, cancellation: token)
            } catch {
                releaseJob(exchange)
                return queue(.refusal(error), on: exchange)
            }
        }
        let job = JobRun(handler: handler, waiter: waiter, token: token)
        exchange.handler = nil
        exchange.waiter = nil
        exchange.phase = .running

        // Suspend before anyone can resume: the watch and the running state are published only
        // after, and whoever wins `deliver` resumes exactly once.
        exchange.connection.suspend()
        let watch = watcher?.watch(fd: exchange.connection.socket) { [weak exchange] in
            exchange?.clientGone.store(true, ordering: .relaxed)
            token.cancel(.cancelled)
        }
        let accepted = state.registry.withLock { registry in
            guard !registry.stopping else { return false }
            exchange.delivery.withLock { $0 = .running(watch: watch) }
            return true
        }
        guard accepted else {
            // Never published as running, so nobody else can resume it.
            if let watch { watcher?.unwatch(watch) }
            token.cancel(.cancelled)
            exchange.delivery.withLock { $0 = .delivered(Self.stoppedResponse, queueWait: nil) }
            exchange.connection.resume()
            return .YES
        }
        if !pool.submit({ self.run(job, for: exchange) }) {
            // Published as running: a stopping server may already have answered for it, so
            // go through `deliver`, which resumes only for whoever answers first.
            token.cancel(.cancelled)
            deliver(Self.stoppedResponse, queueWait: nil, to: exchange)
        }
        return .YES
    }

    /// On a job thread: wait for admission, run, release, deliver.
    func run(_ job: JobRun, for exchange: Exchange) {
        var response: HTTPResponse
        var queueWait: Duration?
        do {
            let ticket = try job.waiter.wait()
            queueWait = ticket.waited
            if let handler = job.handler {
                response = handler.run(JobContext(request: exchange.request, cancellation: job.token, ticket: ticket))
            } else {
                response = .error(status: 500, kind: ServeErrorKind.internalError, message: "the job lost its handler")
            }
            job.handler = nil
            ticket.release()
        } catch {
            job.handler = nil
            response = .refusal(error)
        }
        deliver(response, queueWait: queueWait, to: exchange)
    }

    /// Publishes a job's response and resumes its connection, unless another delivery won.
    func deliver(_ response: HTTPResponse, queueWait: Duration?, to exchange: Exchange) {
        guard let resumption = exchange.deliver(response, queueWait: queueWait) else { return }
        if let watch = resumption.watch { watcher?.unwatch(watch) }
        exchange.connection.resume()
    }

    /// The answer for jobs a stopping server will not wait for.
    static var stoppedResponse: HTTPResponse {
        .error(status: 503, kind: SplatErrorKind.cancelled.rawValue,
               message: "the server stopped before the job finished (its grace period ran out)")
    }

    // MARK: - Draining

    /// Stops jobs from starting and cancels every request's token: running jobs stop at their
    /// next check, queued ones leave the queue, uploads are refused at their next piece (503).
    /// Returns how many jobs were running.
    func cancelAll() -> Int {
        let all = state.registry.withLock { registry -> [Exchange] in
            registry.stopping = true
            return Array(registry.exchanges.values)
        }
        var running = 0
        for exchange in all {
            if exchange.isRunning { running += 1 }
            exchange.token.cancel(.cancelled)
        }
        return running
    }

    /// Answers every job still running with 503 so its connection resumes (libmicrohttpd may
    /// not stop with a suspended connection); their threads finish on their own.
    func abandonRunning() {
        let all = state.registry.withLock { $0.exchanges.values.map { $0 } }
        for exchange in all { deliver(Self.stoppedResponse, queueWait: nil, to: exchange) }
    }

    // MARK: - Completion

    /// libmicrohttpd is done with the request: free it, cancel what still runs for it, log it.
    func completed(_ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>, _ code: MHD_RequestTerminationCode) {
        guard let opaque = context.pointee else { return }
        context.pointee = nil
        let exchange = Unmanaged<Exchange>.fromOpaque(opaque).takeRetainedValue()
        let clean = code == .REQUEST_TERMINATED_COMPLETED_OK
        if !clean { exchange.token.cancel(.cancelled) }
        releaseJob(exchange)
        state.registry.withLock { _ = $0.exchanges.removeValue(forKey: ObjectIdentifier(exchange)) }
        let reached = (clean && exchange.sent != nil && !exchange.clientGone.load(ordering: .relaxed)) || exchange.sentEarly
        record(exchange, delivered: reached)
    }

    /// The metrics and the access log line for a finished request.
    private func record(_ exchange: Exchange, delivered: Bool) {
        let response = exchange.sent
        // 499, as nginx logs it: the client went away before the whole response reached it.
        let status = delivered ? response?.status ?? 499 : 499
        let duration = ContinuousClock.now - exchange.request.receivedAt
        metrics.requests.labels(exchange.route, String(status)).increment()
        metrics.requestDuration.labels(exchange.route).observe(duration)
        var stages: [(stage: String, duration: Duration)] = []
        if let wait = exchange.queueWait { stages.append(("queue", wait)) }
        stages += response?.stageDurations ?? []
        for (stage, time) in stages { metrics.stageDuration.labels(stage).observe(time) }
        if let splats = response?.splatCount { metrics.splatsDecoded.increment(by: Double(splats)) }
        if let response, let reason = ErrorStatus.rejectionReason(status: response.status, kind: response.errorKind) {
            metrics.rejected.labels(reason).increment()
        }
        accessLog?.record(AccessLogEntry(
            time: Date(), requestID: exchange.request.requestID, method: exchange.request.method, route: exchange.route,
            status: status, bytesIn: exchange.bytesIn, bytesOut: delivered ? response?.body.count ?? 0 : 0,
            duration: duration, stages: stages, splatCount: response?.splatCount,
            errorKind: response?.errorKind ?? (delivered ? nil : SplatErrorKind.cancelled.rawValue)))
    }
}
