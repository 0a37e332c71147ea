import SplatCore
import SplatImage
import SplatService

/// Job results as HTTP responses: the image (or sheet, animation, info JSON) with its type, the
/// stage times for `Server-Timing` and the metrics, the splat count; failures as the JSON error
/// body with the status their kind maps to (`ErrorStatus`).
enum SceneResponse {
    /// A finished scene job: 200 with the bytes it made, or its error.
    static func scene(_ outcome: JobOutcome, request: SceneRequest) -> HTTPResponse {
        let report = outcome.report
        var response: HTTPResponse
        if let error = report.error {
            response = failure(error, request: request)
        } else if let bytes = body(of: outcome, route: request.route), let format = request.imageFormat {
            response = .bytes(bytes, contentType: format.mimeType)
        } else {
            response = .error(status: 500, kind: ServeErrorKind.internalError, message: "the job succeeded without its output")
        }
        response.stageDurations = stages(report.timings)
        response.splatCount = report.decodedCount
        return response
    }

    /// The bytes the route answers with: the single view, or the held sheet or animation.
    private static func body(of outcome: JobOutcome, route: SceneRoute) -> [UInt8]? {
        route == .render ? outcome.imageBytes : outcome.heldOutputs.first?.bytes
    }

    /// An info job's description: the `info --json` object. A bounds decode stopped by the
    /// deadline or a drain fails the request; any other bounds failure is reported inside the
    /// object (`bounds_error`), as `info --json --bounds` prints it.
    static func info(_ info: SceneInfo) -> HTTPResponse {
        if let error = info.boundsError, [.timeout, .cancelled, .interrupted].contains(error.kind) {
            return .error(error)
        }
        var response = HTTPResponse.json(info.json)
        response.splatCount = info.bounds?.count
        return response
    }

    /// The error response for `error`. Bodies without a signature get the hint the command
    /// line gives for standard input: `.splat` has none, so it must be named.
    static func failure(_ error: SplatError, request: SceneRequest) -> HTTPResponse {
        var shown = error
        if error.kind == .badMagic, request.load.format == nil {
            shown.message += "; a .splat body needs format=splat"
        }
        return .error(shown)
    }

    /// `Server-Timing`'s four stages from a report's timings: decode (header and body),
    /// prepare (frame conversion, up estimate, framing, the renderer's per-scene data), render
    /// (the views) and encode (shrinking, composing, encoding).
    static func stages(_ timings: StageTimings) -> [(stage: String, duration: Duration)] {
        let prepare = timings.total(.frame) + (timings[.prepare] ?? 0)
        let render = timings[.render] ?? 0
        let figures: [(String, Double)] = [
            ("decode", timings.total(.decode)), ("prepare", prepare), ("render", render), ("encode", timings.total(.encode)),
        ]
        return figures.map { ($0.0, .nanoseconds(Int64(($0.1 * 1e6).rounded()))) }
    }
}
