import SplatCore

/// One reply from Redis, copied out of hiredis's reply tree so it outlives the C objects.
/// Bulk strings stay bytes (Redis values are binary-safe); `string` decodes them as UTF-8.
public enum RedisReply: Sendable, Equatable {
    /// A simple status such as `OK` or `QUEUED`.
    case status(String)
    /// An error reply: `code message`, e.g. `BUSYGROUP Consumer Group name already exists`.
    case error(String)
    case integer(Int64)
    case bulk([UInt8])
    case array([RedisReply])
    /// The null bulk string or null array (no value, or a blocking read that timed out).
    case null

    /// The text of a bulk string or status, nil for other replies or bytes that are not UTF-8.
    public var string: String? {
        switch self {
        case .bulk(let bytes): String(validating: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The elements of an array reply; nil for anything else.
    public var array: [RedisReply]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The value of an integer reply (or of a bulk string holding a decimal integer).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk: string.flatMap { Int64($0) }
        default: nil
        }
    }

    /// Whether this is the null reply.
    public var isNull: Bool { self == .null }

    /// The first word of an error reply (`BUSYGROUP`, `NOGROUP`, `WRONGPASS`, `LOADING`…).
    public var errorCode: String? {
        guard case .error(let text) = self else { return nil }
        return String(text.prefix(while: { $0 != " " }))
    }

    /// Error codes meaning "the server cannot serve this right now": a restart still loading
    /// its data, a failover in progress, a script hogging the server, memory full. The command
    /// may succeed later, so these are transient (`io`), not a fault in the command.
    public static let transientErrorCodes: Set<String> = [
        "LOADING", "BUSY", "TRYAGAIN", "CLUSTERDOWN", "MASTERDOWN", "READONLY", "NOREPLICAS", "OOM",
    ]

    /// Throws an error reply as a `SplatError`: `io` for the transient codes above (retry),
    /// `invalid_argument` for the rest (the command or configuration is wrong). Returns the
    /// reply unchanged otherwise, so calls chain: `try client.command(args).orThrow("XACK")`.
    @discardableResult
    public func orThrow(_ what: String) throws(SplatError) -> RedisReply {
        guard case .error(let text) = self else { return self }
        let transient = errorCode.map(Self.transientErrorCodes.contains) ?? false
        throw SplatError(transient ? .io : .invalidArgument, "redis \(what): \(text)", field: "redis")
    }

    /// A reply that had the wrong shape for `what`: the server is not the Redis we expect.
    static func malformed(_ what: String, _ reply: RedisReply) -> SplatError {
        SplatError(.corrupt, "redis \(what): unexpected reply \(String(describing: reply).prefix(200))", field: "redis")
    }
}
