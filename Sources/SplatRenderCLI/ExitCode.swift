import SplatCore
import SplatService

/// Exit statuses of `splatrender`, following sysexits(3) where a value fits.
///
/// | code | name | when |
/// |---:|---|---|
/// | 0 | `ok` | success; also `info` on a file over the decode ceiling (it is reported, not refused); `thumbnails` when every input succeeded |
/// | 2 | `someInputsFailed` | `thumbnails` only: at least one input failed; every input still has its report line (with its own status and `exit_code`) and every good input its outputs. Chosen outside the sysexits range so it cannot be mistaken for one input's failure; problems with the batch itself (bad command line, unwritable output folder or report) keep their own codes |
/// | 64 | `usage` | bad command line: unknown option, missing or malformed value, wrong arguments, a camera with no defined orientation (EX_USAGE) |
/// | 65 | `dataError` | the input is not a valid or supported splat file: every decode error kind except `too_large` and `io`; also `blank`, a scene that renders to less than `--min-coverage` of the frame (EX_DATAERR) |
/// | 66 | `noInput` | the input cannot be opened or read: error kind `io` while reading (EX_NOINPUT) |
/// | 70 | `internalError` | a bug inside splatrender (EX_SOFTWARE) |
/// | 73 | `cannotCreate` | an output file or report cannot be created or written (EX_CANTCREAT) |
/// | 74 | `outputIOError` | writing to standard output failed, e.g. a closed pipe (EX_IOERR) |
/// | 75 | `tooLarge` | refused by a resource ceiling (`too_large`): the declared decoded size exceeds `--max-decoded-bytes`, a frame needs more tile pairs than the renderer's budget, or an animation would hold too many pixels; a higher limit may succeed (EX_TEMPFAIL) |
/// | 124 | `timeout` | `--timeout` expired (error kind `timeout`; the convention of timeout(1)) |
///
/// Every failure also prints one line to standard error:
/// `error: <kind>: <message> (<file>, field <name>, offset <n>)` for data errors, and
/// `error: <message> (see --help)` for usage errors.
public enum ExitCode: Int32, Sendable, CaseIterable {
    case ok = 0
    case someInputsFailed = 2
    case usage = 64
    case dataError = 65
    case noInput = 66
    case internalError = 70
    case cannotCreate = 73
    case outputIOError = 74
    case tooLarge = 75
    case timeout = 124
    /// SIGINT stopped the run (128 + 2, the shell's convention).
    case interrupted = 130
    /// SIGTERM stopped the run (128 + 15).
    case terminated = 143

    /// The status for a failed run, from where it failed and the error kind: a deadline is
    /// always `timeout`; input errors follow `forInputError`; a bad camera or setting is a usage
    /// problem; a resource ceiling is `tooLarge`; an empty scene that cannot be encoded is a data
    /// error; a file that cannot be written is `cannotCreate`; anything else is ours.
    public static func forFailure(_ error: SplatError, at stage: RunReport.FailureStage) -> ExitCode {
        if error.kind == .timeout { return .timeout }
        if error.kind == .interrupted || error.kind == .cancelled { return .interrupted }
        switch stage {
        case .input:
            return forInputError(error.kind)
        case .render, .encode:
            switch error.kind {
            case .invalidArgument: return .usage
            case .tooLarge: return .tooLarge
            case .empty, .blank: return .dataError
            default: return .internalError
            }
        case .output:
            if error.kind == .invalidArgument { return .usage }
            return error.file == "-" ? .outputIOError : .cannotCreate
        }
    }

    /// The status for an error met while reading or decoding an input.
    public static func forInputError(_ kind: SplatErrorKind) -> ExitCode {
        switch kind {
        case .tooLarge: .tooLarge
        case .io: .noInput
        case .invalidArgument, .badJob: .usage
        case .timeout: .timeout
        case .interrupted, .cancelled: .interrupted
        case .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount, .empty,
             .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite, .blank:
            .dataError
        }
    }
}
