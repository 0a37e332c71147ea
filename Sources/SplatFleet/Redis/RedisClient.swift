import CHiredis
import Foundation
import SplatCore
import Synchronization

/// One blocking connection to Redis over hiredis, safe to share between threads: commands are
/// serialised by a lock, so a command that blocks (`XREADGROUP … BLOCK`) holds the connection
/// for its whole wait. Give blocking reads their own client.
///
/// The connection is opened on the first command and reopened after it breaks. A command never
/// loops on its own: after a connection error it throws `io` (transient), and the next command
/// reconnects, first waiting a capped exponential backoff with jitter (none before the first
/// attempt after a drop, so a blip costs one round trip). Callers that want to ride out an
/// outage call `commandRetrying`, or loop themselves.
public final class RedisClient: Sendable {
    /// Timeouts and backoff.
    public struct Options: Sendable, Equatable {
        /// Limit on opening the TCP connection.
        public var connectTimeout: Duration = .seconds(5)
        /// Limit on one command's round trip, on top of the time a blocking command may wait.
        public var commandTimeout: Duration = .seconds(10)
        /// The first reconnect backoff; it doubles per failed attempt up to `backoffCap`.
        public var backoffBase: Duration = .milliseconds(100)
        /// The longest wait between reconnect attempts.
        public var backoffCap: Duration = .seconds(5)

        /// The defaults above.
        public init() {}
    }

    /// The server this client talks to.
    public let url: RedisURL
    /// Its timeouts and backoff.
    public let options: Options
    private let connection = Mutex(Connection())

    /// Counts of connection events, for logs and metrics.
    public struct ConnectionStats: Sendable, Equatable {
        /// Successful connects, the first included.
        public var connects = 0
        /// Connections that broke under a command (I/O error, EOF, timeout).
        public var drops = 0
        /// Connect attempts that failed.
        public var failedConnects = 0
    }

    struct Connection: ~Copyable {
        var context: UnsafeMutablePointer<redisContext>?
        /// Connection failures (failed connects and drops) since the last reply; decides the
        /// next backoff, so a server that accepts and then hangs up is not hammered either.
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var stats = ConnectionStats()

        deinit {
            if let context { redisFree(context) }
        }
    }

    /// A client for `url`; nothing is opened until the first command (or `connect`).
    public init(url: RedisURL, options: Options = Options()) {
        self.url = url
        self.options = options
    }

    /// Connection events so far.
    public var stats: ConnectionStats { connection.withLock { $0.stats } }

    /// Opens the connection now if it is not open, so configuration errors show at start-up.
    public func connect(cancellation: CancellationToken = .none) throws(SplatError) {
        try connection.withLock { (state: inout Connection) throws(SplatError) in
            try ensureOpen(&state, cancellation: cancellation)
        }
    }

    /// Closes the connection; the next command opens a new one.
    public func close() {
        connection.withLock { state in
            if let context = state.context { redisFree(context) }
            state.context = nil
        }
    }

    /// Runs one command (UTF-8 arguments). See `command(bytes:…)`.
    public func command(_ arguments: [String], cancellation: CancellationToken = .none,
                        blockingFor wait: Duration = .zero) throws(SplatError) -> RedisReply {
        try command(bytes: arguments.map { Array($0.utf8) }, cancellation: cancellation, blockingFor: wait)
    }

    /// Runs one command with binary-safe arguments and returns its reply; an error reply is
    /// returned, not thrown (see `RedisReply.orThrow`). `wait` is how long the command may
    /// block on the server (the BLOCK of `XREADGROUP`); the socket timeout grows by it.
    /// Throws `io` when the connection cannot be opened or breaks, and the token's error when
    /// it is cancelled while waiting to reconnect.
    public func command(bytes arguments: [[UInt8]], cancellation: CancellationToken = .none,
                        blockingFor wait: Duration = .zero) throws(SplatError) -> RedisReply {
        guard !arguments.isEmpty, arguments.count < Int(Int32.max) else {
            throw SplatError(.invalidArgument, "redis: a command needs 1…\(Int32.max) arguments", field: "redis")
        }
        let name = String(decoding: arguments[0], as: UTF8.self).uppercased()
        return try connection.withLock { (state: inout Connection) throws(SplatError) -> RedisReply in
            try ensureOpen(&state, cancellation: cancellation)
            guard let context = state.context else { throw SplatError(.io, "redis: not connected", field: "redis") }
            let extended = wait > .zero
            if extended { redisSetTimeout(context, Self.socketTimeout(options.commandTimeout + wait)) }
            let raw = Self.send(arguments, on: context)
            guard let raw else {
                let reason = Self.errorText(context)
                drop(&state)
                throw SplatError(.io, "redis \(name): connection lost (\(reason))", field: "redis")
            }
            defer { freeReplyObject(raw) }
            if extended { redisSetTimeout(context, Self.socketTimeout(options.commandTimeout)) }
            let reply = try Self.copy(raw.assumingMemoryBound(to: redisReply.self), depth: 0)
            if let code = reply.errorCode, RedisReply.transientErrorCodes.contains(code) {
                // A busy server (LOADING, READONLY…) counts like a failed connect: the next
                // command waits the backoff first, so callers that loop do not spin.
                state.failures += 1
                state.retryAt = ContinuousClock.now + backoff(failures: state.failures)
            } else {
                state.failures = 0
            }
            return reply
        }
    }

    /// Runs `arguments`, riding out connection loss and transient error replies (`LOADING`
    /// after a restart, `READONLY` during a failover) until `limit` has passed or the token is
    /// cancelled. A command whose reply was lost may have run: only retry commands that are
    /// safe to run twice (reads, `XACK`, `XCLAIM`), or accept a duplicate (`XADD`).
    public func commandRetrying(_ arguments: [String], limit: Duration, cancellation: CancellationToken = .none,
                                blockingFor wait: Duration = .zero) throws(SplatError) -> RedisReply {
        let giveUp = ContinuousClock.now + limit
        while true {
            // The client's backoff paces the loop: each failure makes the next command wait.
            do {
                let reply = try command(arguments, cancellation: cancellation, blockingFor: wait)
                if let code = reply.errorCode, RedisReply.transientErrorCodes.contains(code), ContinuousClock.now < giveUp {
                    continue
                }
                return reply
            } catch where error.kind == .io && ContinuousClock.now < giveUp {
                continue
            }
        }
    }

    // MARK: - Connection state

    private func ensureOpen(_ state: inout Connection, cancellation: CancellationToken) throws(SplatError) {
        if let retryAt = state.retryAt {
            try CancellableWait.until(retryAt, cancellation: cancellation, point: "while waiting to retry redis")
            state.retryAt = nil
        }
        if state.context != nil { return }
        do {
            state.context = try open()
            state.stats.connects += 1
        } catch {
            state.failures += 1
            state.stats.failedConnects += 1
            state.retryAt = ContinuousClock.now + backoff(failures: state.failures)
            throw error
        }
    }

    private func drop(_ state: inout Connection) {
        if let context = state.context { redisFree(context) }
        state.context = nil
        state.stats.drops += 1
        // Reconnect at once after the first drop: most drops are a restart or an idle cut, and
        // the backoff only starts if that attempt fails too.
        state.retryAt = state.failures == 0 ? nil : ContinuousClock.now + backoff(failures: state.failures)
        state.failures += 1
    }

    /// `base · 2^(failures-1)`, capped, times a random factor in [0.5, 1] so a fleet that lost
    /// its server at the same moment does not reconnect in lockstep.
    func backoff(failures: Int) -> Duration {
        let exponent = min(max(failures - 1, 0), 30)
        let raw = options.backoffBase * (1 << exponent)
        return min(raw, options.backoffCap) * Double.random(in: 0.5...1.0)
    }

    private func open() throws(SplatError) -> UnsafeMutablePointer<redisContext> {
        guard let context = redisConnectWithTimeout(url.host, Int32(url.port), Self.socketTimeout(options.connectTimeout)) else {
            throw SplatError(.io, "redis: cannot allocate a connection to \(url)", field: "redis")
        }
        var ok = false
        defer { if !ok { redisFree(context) } }
        if context.pointee.err != 0 {
            throw SplatError(.io, "redis: cannot connect to \(url): \(Self.errorText(context))", field: "redis")
        }
        redisSetTimeout(context, Self.socketTimeout(options.commandTimeout))
        redisEnableKeepAlive(context)
        if let password = url.password {
            let login = ["AUTH"] + (url.user.map { [$0] } ?? []) + [password]
            try Self.handshake(login.map { Array($0.utf8) }, on: context, what: "AUTH")
        }
        if url.database != 0 {
            try Self.handshake([Array("SELECT".utf8), Array(String(url.database).utf8)], on: context, what: "SELECT")
        }
        ok = true
        return context
    }

    /// A login step: a refused password or database is permanent (`invalid_argument`); a server
    /// still loading is transient (`io`).
    private static func handshake(_ arguments: [[UInt8]], on context: UnsafeMutablePointer<redisContext>, what: String) throws(SplatError) {
        guard let raw = send(arguments, on: context) else {
            throw SplatError(.io, "redis \(what): connection lost (\(errorText(context)))", field: "redis")
        }
        defer { freeReplyObject(raw) }
        try copy(raw.assumingMemoryBound(to: redisReply.self), depth: 0).orThrow(what)
    }

    // MARK: - hiredis glue

    private static func send(_ arguments: [[UInt8]], on context: UnsafeMutablePointer<redisContext>) -> UnsafeMutableRawPointer? {
        // One contiguous buffer holds every argument; argv points into it and argvlen carries
        // the lengths, so arguments may hold NUL bytes.
        var joined: [UInt8] = []
        joined.reserveCapacity(arguments.reduce(0) { $0 + $1.count } + 1)
        var offsets: [Int] = []
        for argument in arguments {
            offsets.append(joined.count)
            joined += argument
        }
        joined.append(0)
        let lengths = arguments.map { $0.count }
        return joined.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    redisCommandArgv(context, Int32(arguments.count), argvBuffer.baseAddress, lengthBuffer.baseAddress)
                }
            }
        }
    }

    /// The reply tree as a Swift value. Stream replies nest five deep; 32 is a guard against a
    /// hostile server, not a limit anyone meets.
    private static func copy(_ reply: UnsafeMutablePointer<redisReply>, depth: Int) throws(SplatError) -> RedisReply {
        guard depth < 32 else { throw SplatError(.corrupt, "redis: reply nested deeper than 32 levels", field: "redis") }
        let node = reply.pointee
        switch node.type {
        case REDIS_REPLY_STRING:
            return .bulk(node.len == 0 ? [] : Array(UnsafeRawBufferPointer(start: node.str, count: node.len)))
        case REDIS_REPLY_STATUS:
            return .status(text(node))
        case REDIS_REPLY_ERROR:
            return .error(text(node))
        case REDIS_REPLY_INTEGER:
            return .integer(node.integer)
        case REDIS_REPLY_NIL:
            return .null
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(node.elements)
            for index in 0..<node.elements {
                guard let child = node.element[index] else { elements.append(.null); continue }
                elements.append(try copy(child, depth: depth + 1))
            }
            return .array(elements)
        default:
            throw SplatError(.corrupt, "redis: unknown reply type \(node.type)", field: "redis")
        }
    }

    private static func text(_ node: redisReply) -> String {
        guard let str = node.str, node.len > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: str, count: node.len), as: UTF8.self)
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { raw in
            let bytes = raw.prefix(while: { $0 != 0 })
            return bytes.isEmpty ? "error \(context.pointee.err)" : String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func socketTimeout(_ duration: Duration) -> timeval {
        let microseconds = max(CancellableWait.milliseconds(duration), 1) * 1000
        return timeval(tv_sec: microseconds / 1_000_000, tv_usec: microseconds % 1_000_000)
    }
}
