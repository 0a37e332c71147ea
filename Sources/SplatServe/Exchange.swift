import Synchronization
import SplatCore
import SplatService

/// One request, from its first access-handler call to libmicrohttpd's completion callback.
///
/// Ownership: libmicrohttpd calls the access handler and the completion callback for a
/// connection on that connection's I/O thread, one call at a time, so the `io` fields need
/// no lock. While a job runs the connection is suspended and the I/O thread does not touch the
/// exchange; the job thread (or a drain that gave up waiting) delivers the response through
/// `delivery`, the one field shared across threads. The exchange is retained by
/// libmicrohttpd's per-request pointer from the first call to the completion callback.
final class Exchange: @unchecked Sendable {
    /// Where the request stands on its I/O thread.
    enum Phase {
        /// An immediate route, answered when the request is complete.
        case immediate(@Sendable (HTTPRequest) -> HTTPResponse)
        /// A job route whose body is arriving.
        case receiving
        /// Refused: the rest of the body is dropped. `pending` is queued when the request is
        /// complete; nil means the refusal already went out through `EarlyResponseWriter`.
        case discarding(pending: HTTPResponse?)
        /// Suspended while a job thread runs the job.
        case running
        /// A response was handed to libmicrohttpd.
        case answered
    }

    /// The job's side of delivery, under `delivery`'s lock.
    enum Delivery {
        /// Not suspended yet (or never a job).
        case idle
        /// Suspended; `watch` is the disconnect watcher's id for the socket, if watched.
        case running(watch: UInt64?)
        /// The response (and the job's queue wait, if it started) is ready for the I/O thread
        /// to queue after resumption.
        case delivered(HTTPResponse, queueWait: Duration?)
    }

    let request: HTTPRequest
    /// The metrics' route label: the registered path or `unmatched`.
    let route: String
    let connection: MHDConnection
    /// The request's deadline and cancellation, for its upload, queue wait and job alike.
    let token: CancellationToken

    // I/O-thread state.
    var phase: Phase = .answered
    var handler: (any JobHandler)?
    var waiter: AdmissionWaiter?
    var bytesIn = 0
    /// The response given to libmicrohttpd or written early, for the log and the metrics.
    var sent: HTTPResponse?
    /// Whether `sent` went out through `EarlyResponseWriter`, and when.
    var sentEarly = false
    var refusedAt: ContinuousClock.Instant?
    /// The job's wait in the admission queue, once it started.
    var queueWait: Duration?

    let delivery = Mutex<Delivery>(.idle)
    /// Set by the disconnect watcher when the client hung up while the job ran.
    let clientGone = Atomic<Bool>(false)

    init(request: HTTPRequest, route: String, connection: MHDConnection, token: CancellationToken) {
        self.request = request
        self.route = route
        self.connection = connection
        self.token = token
    }

    /// What the one caller whose delivery won must do next: drop the socket's watch, then
    /// resume the connection.
    struct Resumption {
        let watch: UInt64?
    }

    /// Publishes `response` if the job is still running; nil when someone else already
    /// delivered (the later answer is dropped: a drain gave up on the job, or the reverse).
    func deliver(_ response: HTTPResponse, queueWait: Duration? = nil) -> Resumption? {
        delivery.withLock { state in
            guard case .running(let watch) = state else { return nil }
            state = .delivered(response, queueWait: queueWait)
            return Resumption(watch: watch)
        }
    }

    /// Whether a job thread has the request.
    var isRunning: Bool {
        delivery.withLock { state in
            guard case .running = state else { return false }
            return true
        }
    }

    /// The delivered response, taken once by the I/O thread after resumption.
    func takeDelivered() -> (HTTPResponse, queueWait: Duration?)? {
        delivery.withLock { state in
            guard case .delivered(let response, let queueWait) = state else { return nil }
            state = .idle
            return (response, queueWait)
        }
    }
}
