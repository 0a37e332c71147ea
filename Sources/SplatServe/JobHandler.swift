import SplatCore
import SplatService

/// One request's work on a job route, from its body to its response. The server calls
/// `receive` and `bodyComplete` on a libmicrohttpd I/O thread (they must be quick and never
/// block: copy bytes, sniff a header, compute an estimate), then `run` on one of its job
/// threads with the admission ticket held. The calls never overlap: the object passes from the
/// I/O thread to the job thread once, through the job pool's lock, so it needs no lock itself.
public protocol JobHandler: AnyObject {
    /// The next piece of the body, in order (empty bodies get no call). Return `.proceed` to
    /// keep reading, `.admit` once the job's peak is known (for example after sniffing the
    /// scene header) so it takes its place in the queue while the rest uploads, or `.refuse`
    /// to answer now without reading the rest.
    func receive(_ bytes: UnsafeRawBufferPointer) -> BodyVerdict

    /// The whole body has arrived. `.admit` (or `.proceed`, which admits with 0 bytes when no
    /// estimate was given earlier) starts the job; `.refuse` answers instead.
    func bodyComplete() -> BodyVerdict

    /// Does the job and returns its response. Runs on a job thread; `context.cancellation` is
    /// cancelled when the client goes away, the deadline passes, or a drain runs out of grace,
    /// and the work should stop at its next check. The ticket is released after this returns.
    func run(_ context: JobContext) -> HTTPResponse
}

extension JobHandler {
    public func receive(_ bytes: UnsafeRawBufferPointer) -> BodyVerdict { .proceed }
    public func bodyComplete() -> BodyVerdict { .proceed }
}

/// What a job handler says after a piece of the body or at its end.
public enum BodyVerdict {
    /// Keep going.
    case proceed
    /// Reserve `estimatedBytes` (the job's whole estimated peak) and a worker; the job waits
    /// in the admission queue from now on. Only the first `.admit` counts.
    case admit(estimatedBytes: Int)
    /// Answer with this response now and read no more of the body.
    case refuse(HTTPResponse)
}

/// What a job route's factory decides once the headers have arrived.
public enum JobStart {
    /// Accept the request: stream its body into `handler`. `timeout` is the request's own
    /// deadline (e.g. from a `timeout=` parameter); the server caps it at its request timeout,
    /// and nil means the server's.
    case start(any JobHandler, timeout: Duration? = nil)
    /// Answer at once, before any of the body is read (bad parameters, for example).
    case refuse(HTTPResponse)
}

/// What `JobHandler.run` gets: the request, its token and its admission ticket.
public struct JobContext: Sendable {
    public let request: HTTPRequest
    /// Cancelled on disconnect, at the deadline, or when a drain runs out of grace.
    public let cancellation: CancellationToken
    /// The worker slot and memory reservation this job holds while `run` runs.
    public let ticket: AdmissionTicket
}
