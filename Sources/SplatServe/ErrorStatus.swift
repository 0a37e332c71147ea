import SplatCore

/// Error kinds the HTTP layer adds to `SplatErrorKind`'s (same spelling rules: lower snake case).
public enum ServeErrorKind {
    /// No route has this path (404).
    public static let notFound = "not_found"
    /// The path exists but not for this method (405).
    public static let methodNotAllowed = "method_not_allowed"
    /// The body is larger than `--max-body-bytes` (413).
    public static let bodyTooLarge = "body_too_large"
    /// Every worker is busy and the queue is full, or the job could not start before its
    /// deadline (503 with `Retry-After`).
    public static let busy = "busy"
    /// The server is draining and takes no new jobs (503).
    public static let draining = "draining"
    /// A bug or an unexpected failure on our side (500).
    public static let internalError = "internal"
}

/// Which HTTP status each error kind is answered with — the one table the face uses.
public enum ErrorStatus {
    /// Seconds a client is told to wait before retrying a 503.
    public static let retryAfterSeconds = 1

    /// The status for a library error kind: bad parameters 400, `too_large` 413, `timeout`
    /// 504, withdrawn work 503, I/O 500, and every decode failure 422 (the request was well
    /// formed but its scene cannot be decoded), as is `blank` (it renders to nothing).
    public static func forKind(_ kind: SplatErrorKind) -> Int {
        switch kind {
        case .invalidArgument, .badJob: 400
        case .tooLarge: 413
        case .timeout: 504
        case .cancelled, .interrupted: 503
        case .io: 500
        case .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount,
             .empty, .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite: 422
        // The scene decoded but its render is (nearly) empty: well formed, not processable.
        case .blank: 422
        }
    }

    /// The `splatrender_rejected_total` reason for a response, or nil when it is not a
    /// rejection (successes, decode failures, internal errors).
    public static func rejectionReason(status: Int, kind: String?) -> String? {
        switch (status, kind) {
        case (503, ServeErrorKind.busy): "busy"
        case (413, ServeErrorKind.bodyTooLarge): "body_too_large"
        case (413, _): "too_large"
        case (504, _): "timeout"
        case (400, _): "bad_request"
        default: nil
        }
    }

    /// Every reason `rejectionReason` can return, so each series exists from the start.
    public static let rejectionReasons = ["busy", "too_large", "timeout", "bad_request", "body_too_large"]
}
