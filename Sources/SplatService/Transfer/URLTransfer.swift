import CCurl
import SplatCore

/// HTTP(S) downloads and uploads over libcurl, with the limits a worker fetching URLs from
/// strangers needs: `http` and `https` only (redirects included), connect and total timeouts,
/// at most `maxRedirects` redirects, TLS verification on, a byte cap on every body, and
/// cancellation through a `CancellationToken`.
///
/// Failures are `SplatError`s whose kind says whether to retry:
///
/// | kind | when | retry? |
/// |---|---|---|
/// | `io` | cannot resolve or connect, connection lost, timed out (our limit), 5xx, 408, 429 | yes |
/// | `bad_job` | a scheme other than http(s) (also via a redirect), malformed URL, 4xx other than 408/429, too many redirects, TLS certificate refused | no |
/// | `too_large` | the body exceeds the cap (announced or while streaming; the download stops) | no |
/// | `timeout`, `interrupted`, `cancelled` | the job's token expired or was cancelled | the caller decides |
///
/// Messages name the URL without its query string, which often holds a signature.
/// Each call opens its own connection: no pooling, so nothing is shared between threads.
public struct URLTransfer: Sendable {
    /// Limits of every transfer.
    public struct Configuration: Sendable, Equatable {
        /// Limit on opening the connection (DNS, TCP and TLS).
        public var connectTimeout: Duration = .seconds(10)
        /// Limit on one whole transfer; a token's earlier deadline wins.
        public var totalTimeout: Duration = .seconds(120)
        /// Redirects followed before giving up (`bad_job`).
        public var maxRedirects = 3
        /// Honour `http_proxy`/`https_proxy`/`no_proxy` from the environment (libcurl's default).
        public var useEnvironmentProxy = true
        public var userAgent = "splatrender"

        /// The defaults above.
        public init() {}
    }

    /// The schemes a transfer may use, as libcurl spells its protocol list.
    public static let allowedSchemes = ["http", "https"]
    /// How much of an upload's response body is kept (for nothing but bounded memory).
    static let uploadResponseCap = 64 * 1024

    public var configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Downloads `url` into memory; more than `maxBytes` is `too_large` and stops the transfer.
    public func get(_ url: String, maxBytes: Int, cancellation: CancellationToken = .none) throws(SplatError) -> [UInt8] {
        guard maxBytes >= 0 else { throw SplatError(.invalidArgument, "GET: negative byte cap") }
        let state = TransferState(cap: maxBytes, upload: [], cancellation: cancellation)
        try perform("GET", url, state: state) { handle throws(SplatError) in
            try Self.set(handle, CURLOPT_HTTPGET, 1)
            // Refuses early when Content-Length already says too much.
            try Self.check(splat_curl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes)))
        }
        return state.body
    }

    /// Uploads `bytes` to `url` with HTTP PUT and `Content-Type: contentType`; done when the
    /// server answers 2xx. Redirects (307/308) are followed with the body sent again.
    public func put(_ bytes: [UInt8], to url: String, contentType: String,
                    cancellation: CancellationToken = .none) throws(SplatError) {
        guard !contentType.contains(where: { $0 == "\r" || $0 == "\n" }) else {
            throw SplatError(.invalidArgument, "PUT: content type must be one line")
        }
        let state = TransferState(cap: Self.uploadResponseCap, upload: bytes, cancellation: cancellation)
        state.discardsBody = true
        try CurlGlobal.ready() // the header list is libcurl's, made before the transfer
        var headers: UnsafeMutablePointer<curl_slist>?
        // An empty Expect stops curl waiting for a 100-continue many servers never send.
        for line in ["Content-Type: \(contentType)", "Expect:"] {
            guard let grown = splat_curl_slist_append(headers, line) else {
                splat_curl_slist_free_all(headers)
                throw SplatError(.io, "PUT: out of memory building headers")
            }
            headers = grown
        }
        defer { splat_curl_slist_free_all(headers) }
        try perform("PUT", url, state: state) { handle throws(SplatError) in
            try Self.set(handle, CURLOPT_UPLOAD, 1)
            try Self.check(splat_curl_setopt_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(bytes.count)))
            try Self.check(splat_curl_setopt_list(handle, CURLOPT_HTTPHEADER, headers))
            try Self.check(splat_curl_setopt_read(handle, CURLOPT_READFUNCTION, TransferCallbacks.read))
            try Self.check(splat_curl_setopt_pointer(handle, CURLOPT_READDATA, state.opaque))
            try Self.check(splat_curl_setopt_seek(handle, CURLOPT_SEEKFUNCTION, TransferCallbacks.seek))
            try Self.check(splat_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, state.opaque))
        }
    }

    // MARK: - One transfer

    private func perform(_ method: String, _ url: String, state: TransferState,
                         configure: (UnsafeMutableRawPointer) throws(SplatError) -> Void) throws(SplatError) {
        let shown = Self.redacted(url)
        try Self.checkScheme(url, method: method)
        try state.cancellation.check("before \(method) \(shown)")
        try CurlGlobal.ready()
        guard let handle = splat_curl_easy_init() else { throw SplatError(.io, "\(method) \(shown): cannot create a curl handle") }
        defer { splat_curl_easy_cleanup(handle) }
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }

        let c = configuration
        var limit = c.totalTimeout
        var deadlineLimits = false
        if let remaining = state.cancellation.remaining, remaining < limit {
            limit = remaining
            deadlineLimits = true
        }
        try Self.check(splat_curl_setopt_string(handle, CURLOPT_URL, url))
        try Self.check(splat_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        let protocols = Self.allowedSchemes.joined(separator: ",")
        try Self.check(splat_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, protocols))
        try Self.check(splat_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, protocols))
        try Self.set(handle, CURLOPT_FOLLOWLOCATION, 1)
        try Self.set(handle, CURLOPT_MAXREDIRS, c.maxRedirects)
        try Self.set(handle, CURLOPT_CONNECTTIMEOUT_MS, max(Self.milliseconds(c.connectTimeout), 1))
        try Self.set(handle, CURLOPT_TIMEOUT_MS, max(Self.milliseconds(limit), 1))
        // Signals for DNS timeouts are not thread-safe; a worker runs many transfers at once.
        try Self.set(handle, CURLOPT_NOSIGNAL, 1)
        try Self.set(handle, CURLOPT_SSL_VERIFYPEER, 1)
        try Self.set(handle, CURLOPT_SSL_VERIFYHOST, 2)
        try Self.set(handle, CURLOPT_FAILONERROR, 1)
        try Self.check(splat_curl_setopt_string(handle, CURLOPT_USERAGENT, c.userAgent))
        if !c.useEnvironmentProxy { try Self.check(splat_curl_setopt_string(handle, CURLOPT_PROXY, "")) }
        try Self.check(splat_curl_setopt_write(handle, CURLOPT_WRITEFUNCTION, TransferCallbacks.write))
        try Self.check(splat_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, state.opaque))
        try Self.check(splat_curl_setopt_xferinfo(handle, CURLOPT_XFERINFOFUNCTION, TransferCallbacks.progress))
        try Self.check(splat_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, state.opaque))
        try Self.set(handle, CURLOPT_NOPROGRESS, 0)
        try configure(handle)

        let code = withExtendedLifetime(state) { splat_curl_easy_perform(handle) }
        var status = 0
        splat_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let detail = String(cString: errorBuffer)
        let what = "\(method) \(shown)"
        if code != CURLE_OK {
            throw Self.error(code, what: what, status: status, detail: detail, state: state,
                             deadlineLimits: deadlineLimits, limit: limit)
        }
        guard (200..<300).contains(status) else {
            throw SplatError(.badJob, "\(what) answered \(status) after following at most \(c.maxRedirects) redirects")
        }
        if method == "PUT" {
            // A 303 turns a PUT into a GET; its 2xx would not mean the bytes were stored.
            var effective: UnsafeMutablePointer<CChar>?
            splat_curl_getinfo_string(handle, CURLINFO_EFFECTIVE_METHOD, &effective)
            if let effective, String(cString: effective) != "PUT" {
                throw SplatError(.badJob, "\(what) was redirected into a \(String(cString: effective)); the upload did not happen")
            }
        }
    }

    // MARK: - Errors

    static func error(_ code: CURLcode, what: String, status: Int, detail: String, state: TransferState,
                      deadlineLimits: Bool, limit: Duration) -> SplatError {
        let reason = detail.isEmpty ? String(cString: splat_curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return state.cancellation.error(for: state.cancellation.reason ?? .cancelled, at: "during \(what)")
        case CURLE_WRITE_ERROR where state.capExceeded, CURLE_FILESIZE_EXCEEDED:
            return SplatError(.tooLarge, "\(what): body larger than the cap of \(state.cap) bytes; download stopped")
        case CURLE_OPERATION_TIMEDOUT:
            // curl's own clock may fire a moment before the token's: when the deadline set the
            // limit, it is the deadline that expired.
            if deadlineLimits {
                return state.cancellation.error(for: state.cancellation.reason ?? .deadline, at: "during \(what)")
            }
            return SplatError(.io, "\(what) timed out (limit \(milliseconds(limit)) ms): \(reason)")
        case CURLE_HTTP_RETURNED_ERROR:
            return httpError(status, what: what)
        case CURLE_UNSUPPORTED_PROTOCOL:
            return SplatError(.badJob, "\(what): refused scheme (only \(allowedSchemes.joined(separator: " and ")), redirects included): \(reason)")
        case CURLE_URL_MALFORMAT:
            return SplatError(.badJob, "\(what): malformed URL: \(reason)")
        case CURLE_TOO_MANY_REDIRECTS:
            return SplatError(.badJob, "\(what): more redirects than allowed: \(reason)")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_LOGIN_DENIED:
            return SplatError(.badJob, "\(what): \(reason)")
        default:
            return SplatError(.io, "\(what): \(reason)")
        }
    }

    /// 408, 429 and 5xx may pass; any other 4xx will not.
    static func httpError(_ status: Int, what: String) -> SplatError {
        let transient = status == 408 || status == 429 || status >= 500
        return SplatError(transient ? .io : .badJob, "\(what) answered \(status)")
    }

    static func checkScheme(_ url: String, method: String) throws(SplatError) {
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard allowedSchemes.contains(scheme), url.dropFirst(scheme.count).hasPrefix("://") else {
            let named = scheme.count < url.count && scheme.count <= 32 ? "scheme \(scheme)" : "a URL without a scheme"
            throw SplatError(.badJob, "\(method): \(named) is not allowed (only \(allowedSchemes.joined(separator: " and ")))")
        }
        guard !url.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f }) else {
            throw SplatError(.badJob, "\(method) \(redacted(url)): URL holds spaces or control characters")
        }
    }

    /// The URL without query, fragment or user info: those hold signatures and passwords.
    public static func redacted(_ url: String) -> String {
        var text = Substring(url)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        if let schemeEnd = text.range(of: "://") {
            let authorityStart = schemeEnd.upperBound
            let authorityEnd = text[authorityStart...].firstIndex(of: "/") ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                text = text[..<authorityStart] + text[text.index(after: at)...]
            }
        }
        return String(text.prefix(300))
    }

    private static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(SplatError) {
        try check(splat_curl_setopt_long(handle, option, value))
    }

    private static func check(_ code: CURLcode) throws(SplatError) {
        guard code == CURLE_OK else {
            throw SplatError(.io, "libcurl refused an option: \(String(cString: splat_curl_easy_strerror(code)))")
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, atto) = duration.components
        return Int(seconds) * 1000 + Int(atto / 1_000_000_000_000_000)
    }
}
