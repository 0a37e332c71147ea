import SplatCore
import SplatService

/// Where a Redis server is and how to log in: `redis://[[user]:password@]host[:port][/db]`.
///
/// The password may be percent-encoded (a `@` or `:` inside it must be). A user name selects a
/// Redis 6 ACL user; without one, `AUTH password` logs in as the default user. IPv6 hosts are
/// written in brackets (`redis://[::1]:6379`). TLS (`rediss://`) is refused: the hiredis build
/// linked here has no TLS, and a silently plain connection would leak the password.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    /// Redis's port when the URL names none.
    public static let defaultPort = 6379

    /// A host name or IP address (IPv6 without brackets).
    public var host: String
    public var port: Int
    /// The ACL user; nil logs in as the default user.
    public var user: String?
    /// Sent with `AUTH` after connecting; never printed.
    public var password: String?
    /// The logical database selected after connecting (`SELECT`); 0 is Redis's default.
    public var database: Int

    /// A URL from its parts.
    public init(host: String, port: Int = RedisURL.defaultPort, user: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// Parses `text`; every malformed part is an `invalid_argument` error naming the part.
    public init(parsing text: String) throws(SplatError) {
        let scheme = "redis://"
        guard text.lowercased().hasPrefix(scheme) else {
            if text.lowercased().hasPrefix("rediss://") {
                throw Self.invalid("TLS (rediss://) is not supported by this build; use a TLS tunnel or a private network")
            }
            throw Self.invalid("expected redis://[:password@]host:port[/db]")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let db = Int(path), db >= 0, db <= 1_000_000 else {
                    throw Self.invalid("database must be a non-negative number, got \"\(path)\"")
                }
                database = db
            }
        }
        guard !rest.contains("?"), !rest.contains("#") else {
            throw Self.invalid("query strings and fragments are not supported")
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let name = try Self.percentDecoded(credentials[..<colon])
                user = name.isEmpty ? nil : name
                password = try Self.percentDecoded(credentials[credentials.index(after: colon)...])
            } else {
                // `redis://secret@host` is how several clients spell a password without a user.
                password = try Self.percentDecoded(credentials)
            }
        }
        var host: Substring
        var portText: Substring?
        let bracketed = rest.hasPrefix("[")
        if bracketed {
            guard let close = rest.firstIndex(of: "]") else { throw Self.invalid("unclosed [ in IPv6 host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw Self.invalid("expected :port after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw Self.invalid("missing host") }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" || (bracketed && $0 == ":") }) else {
            throw Self.invalid("host \"\(host)\" has characters a host name cannot have")
        }
        var port = Self.defaultPort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw Self.invalid("port must be 1…65535, got \"\(portText)\"")
            }
            port = value
        }
        self.init(host: String(host), port: port, user: user, password: password, database: database)
    }

    /// The URL with the password replaced by `***`, safe for logs and error messages.
    public var description: String {
        var text = "redis://"
        if user != nil || password != nil { text += (user ?? "") + (password == nil ? "" : ":***") + "@" }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if database != 0 { text += "/\(database)" }
        return text
    }

    static func invalid(_ reason: String) -> SplatError {
        // The text may hold a password: report only the part that failed, never the whole URL.
        SplatError(.invalidArgument, "--redis: \(reason)", field: "redis")
    }

    static func percentDecoded(_ text: Substring) throws(SplatError) -> String {
        guard let decoded = PercentDecoding.string(text) else {
            throw invalid("bad percent-encoding in the credentials (or not UTF-8)")
        }
        return decoded
    }
}
