import SplatCore

/// Exit statuses of `splatrender`, following sysexits(3) where a value fits.
///
/// | code | name | when |
/// |---:|---|---|
/// | 0 | `ok` | success; also `info` on a file over the decode ceiling (it is reported, not refused) |
/// | 64 | `usage` | bad command line: unknown option, missing or malformed value, wrong arguments, a camera with no defined orientation (EX_USAGE) |
/// | 65 | `dataError` | the input is not a valid or supported splat file: every decode error kind except `too_large` and `io` (EX_DATAERR) |
/// | 66 | `noInput` | the input cannot be opened or read: error kind `io` while reading (EX_NOINPUT) |
/// | 70 | `internalError` | a bug inside splatrender (EX_SOFTWARE) |
/// | 73 | `cannotCreate` | an output file or report cannot be created or written (EX_CANTCREAT) |
/// | 74 | `outputIOError` | writing to standard output failed, e.g. a closed pipe (EX_IOERR) |
/// | 75 | `tooLarge` | refused by a resource ceiling (`too_large`): the declared decoded size exceeds `--max-decoded-bytes`, or a frame needs more tile pairs than the renderer's budget; a higher limit may succeed (EX_TEMPFAIL) |
/// | 124 | `timeout` | a deadline expired (error kind `timeout`; the convention of timeout(1)) |
///
/// Every failure also prints one line to standard error:
/// `error: <kind>: <message> (<file>, field <name>, offset <n>)` for data errors, and
/// `error: <message> (see --help)` for usage errors.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case ok = 0
    case usage = 64
    case dataError = 65
    case noInput = 66
    case internalError = 70
    case cannotCreate = 73
    case outputIOError = 74
    case tooLarge = 75
    case timeout = 124

    /// The status for an error met while reading or decoding an input.
    public static func forInputError(_ kind: SplatErrorKind) -> ExitCode {
        switch kind {
        case .tooLarge: .tooLarge
        case .io: .noInput
        case .invalidArgument: .usage
        case .timeout: .timeout
        case .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount, .empty,
             .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite:
            .dataError
        }
    }
}
