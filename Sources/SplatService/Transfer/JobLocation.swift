import SplatCore

/// Where a job reads its input or writes an output: a local file or an HTTP(S) URL. Made only
/// by `JobLocationRoots.input` / `.output`, which refuse everything else as `bad_job`.
public enum JobLocation: Sendable, Equatable, CustomStringConvertible {
    /// An absolute path, already resolved (symbolic links followed as far as the path
    /// exists) and checked against its root.
    case file(path: String)
    /// An `http://` or `https://` URL, as given.
    case remote(url: String)

    public var description: String {
        switch self {
        case .file(let path): "file://" + path
        case .remote(let url): URLTransfer.redacted(url)
        }
    }

    /// The path whose extension names the format: a file's path, a URL's path without its
    /// query and fragment (`…/put/sheet.png?sig=…` → `…/put/sheet.png`).
    public var pathForFormat: String {
        switch self {
        case .file(let path): return path
        case .remote(let url):
            let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? url.endIndex
            let rest = url[..<cut]
            guard let scheme = rest.range(of: "://") else { return String(rest) }
            return String(rest[scheme.upperBound...].drop(while: { $0 != "/" }))
        }
    }

    /// Which way a location is used; names the role in messages.
    public enum Role: String, Sendable {
        case input
        case output
    }

    /// Splits `text` into a scheme-checked location before any root is applied. `file:` URLs
    /// must be `file:///absolute/path` (or `file://localhost/…`); the path is percent-decoded
    /// first, then refused if any segment is `..`, so `%2e%2e` cannot slip past.
    static func parse(_ text: String, role: Role) throws(SplatError) -> ParsedLocation {
        func refuse(_ reason: String) -> SplatError {
            SplatError(.badJob, "\(role.rawValue) \(URLTransfer.redacted(text)): \(reason)", field: role.rawValue)
        }
        guard !text.isEmpty, text.utf8.count <= 8192 else { throw refuse("must be a URL of 1…8192 bytes") }
        guard !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { throw refuse("holds control characters") }
        guard let colon = text.firstIndex(of: ":") else {
            throw refuse("not a URL; use file:///absolute/path or http(s)://")
        }
        let scheme = text[..<colon].lowercased()
        switch scheme {
        case "http", "https":
            let rest = text[text.index(after: colon)...]
            guard rest.hasPrefix("//"), let host = rest.dropFirst(2).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first,
                  !host.isEmpty, !text.contains(" ") else {
                throw refuse("an \(scheme) URL needs a host")
            }
            return .remote(text)
        case "file":
            var rest = text[text.index(after: colon)...]
            guard rest.hasPrefix("//") else { throw refuse("write file URLs as file:///absolute/path") }
            rest = rest.dropFirst(2)
            let slash = rest.firstIndex(of: "/") ?? rest.endIndex
            let host = rest[..<slash].lowercased()
            guard host.isEmpty || host == "localhost" else { throw refuse("file URLs on another host (\(host)) are not allowed") }
            let encoded = rest[slash...]
            guard !encoded.contains("?"), !encoded.contains("#") else { throw refuse("file URLs take no query or fragment") }
            guard let decoded = PercentDecoding.string(encoded) else { throw refuse("bad percent-encoding or not UTF-8") }
            guard decoded.hasPrefix("/") else { throw refuse("the path must be absolute") }
            guard !decoded.contains("\0") else { throw refuse("the path holds a NUL byte") }
            let segments = decoded.split(separator: "/", omittingEmptySubsequences: true)
            guard !segments.contains("..") else { throw refuse("'..' segments are not allowed") }
            let kept = segments.filter { $0 != "." }.map(String.init)
            if role == .output && (kept.isEmpty || decoded.hasSuffix("/")) { throw refuse("an output needs a file name") }
            return .file(kept)
        default:
            let shown = scheme.count <= 32 ? scheme : String(scheme.prefix(32)) + "…"
            throw refuse("scheme \(shown) is not allowed (file, http and https only)")
        }
    }

    enum ParsedLocation {
        /// Path segments under `/`, with `.` and empty ones removed.
        case file([String])
        case remote(String)
    }
}
