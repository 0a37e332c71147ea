/// Which handler answers a method and path. Paths match exactly (no patterns: the API is a
/// handful of fixed routes). An unknown path is answered 404 and a known path with another
/// method 405 with `Allow`, both with the JSON error body.
public struct Router: Sendable {
    /// How a route answers.
    public enum Handler: Sendable {
        /// Answered on the I/O thread once the request is complete: cheap, never blocking
        /// (health, readiness, metrics). A request body, if any, is read and ignored.
        case immediate(@Sendable (HTTPRequest) -> HTTPResponse)
        /// A job: the factory runs when the headers arrive, the body streams into the handler
        /// it returns, and the work runs on a job thread under admission.
        case job(@Sendable (HTTPRequest) -> JobStart)
    }

    /// The outcome of a lookup.
    public enum Match {
        case found(route: String, Handler)
        case methodNotAllowed(route: String, allowed: [String])
        case notFound
    }

    private var routes: [String: [(method: String, handler: Handler)]] = [:]

    public init() {}

    /// Answers `method path` with `handler`, replacing an earlier registration of the same pair.
    public mutating func add(_ method: String, _ path: String, _ handler: Handler) {
        var entries = routes[path, default: []]
        entries.removeAll { $0.method == method }
        entries.append((method, handler))
        routes[path] = entries
    }

    /// `GET path` (and `HEAD path`) answered at once.
    public mutating func get(_ path: String, _ respond: @escaping @Sendable (HTTPRequest) -> HTTPResponse) {
        add("GET", path, .immediate(respond))
        add("HEAD", path, .immediate(respond))
    }

    /// `POST path` as a job route.
    public mutating func postJob(_ path: String, _ start: @escaping @Sendable (HTTPRequest) -> JobStart) {
        add("POST", path, .job(start))
    }

    /// The handler for `method path`.
    public func match(method: String, path: String) -> Match {
        guard let entries = routes[path] else { return .notFound }
        if let entry = entries.first(where: { $0.method == method }) { return .found(route: path, entry.handler) }
        return .methodNotAllowed(route: path, allowed: entries.map(\.method).sorted())
    }

    /// The registered paths, for the metrics' route label (anything else is `unmatched`).
    public var paths: [String] { routes.keys.sorted() }
}
