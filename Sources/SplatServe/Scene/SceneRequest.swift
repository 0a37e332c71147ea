import SplatCore
import SplatFormats
import SplatImage
import SplatService

/// One job request's options: its query parameters read through the option table (names,
/// value syntax and validation exactly as on the command line; a flag as `flip=1` or
/// `flip=true`), then held to the server's limits, and the jobs they make. The same
/// `ParsedCommand` builders as the command line's turn them into job values, so a request and
/// `splatrender SCENE --out - …` with the same options run the same job.
public struct SceneRequest: Sendable {
    public let route: SceneRoute
    /// The options, given and defaulted, as the route's command reads them.
    public let options: ParsedCommand
    /// Decode options with the server's limits applied.
    public let load: LoadOptions
    /// The request's own deadline (`timeout=`); nil leaves the server's.
    public let timeout: Duration?
    public let settings: SceneServiceSettings

    /// What the body is called in errors and reports.
    public static let inputName = "request body"

    /// Parses `query` for `route`. Unknown parameters (with the nearest name when one is close),
    /// parameters the route does not take, and bad values are `invalid_argument` errors whose
    /// `field` is the parameter.
    public init(route: SceneRoute, query: [(name: String, value: String)], settings: SceneServiceSettings) throws(SplatError) {
        self.route = route
        self.settings = settings
        let rows = route.parameters
        var parsed = ParsedCommand(command: route.command)
        for (name, raw) in query {
            guard let spec = rows[name] else { throw Self.unknown(name, route: route) }
            if spec.kind == .flag {
                guard let on = OptionValueParser.flagValue(raw) else {
                    throw SplatError(.invalidArgument, "invalid value '\(raw)' for \(name): expected 1 or 0 (true or false)", field: name)
                }
                if on { parsed.given[spec.name] = .flag } else { parsed.given[spec.name] = nil }
                continue
            }
            do throws(UsageError) {
                parsed.given[spec.name] = try OptionValueParser.parse(raw, for: spec)
            } catch {
                let message = error.message.replacingOccurrences(of: "for --\(spec.name)", with: "for \(name)")
                throw SplatError(.invalidArgument, message, field: name)
            }
        }
        do throws(UsageError) { try parsed.applyDefaults() } catch {
            // As on the command line, where a default that does not parse is a usage error.
            throw SplatError(.invalidArgument, "the option table's defaults do not parse: \(error.message)")
        }
        options = parsed
        load = Self.load(parsed, settings: settings)
        timeout = parsed.given[.timeout].flatMap { value in
            guard case .number(let seconds) = value else { return nil }
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
        try encoding.validate(for: stillName)
    }

    /// The request's load options under the server's limits: the lower ceiling, the lower SH
    /// degree, strict when either asks.
    private static func load(_ parsed: ParsedCommand, settings: SceneServiceSettings) -> LoadOptions {
        var load = parsed.loadOptions
        var limits = settings.limits
        if parsed.isGiven(.maxDecodedBytes), let asked = parsed.integer(.maxDecodedBytes) {
            limits.maxDecodedBytes = min(asked, limits.maxDecodedBytes)
        }
        if let asked = parsed.integer(.maxShDegree) { limits.maxShDegree = min(asked, limits.maxShDegree ?? asked) }
        limits.strict = limits.strict || parsed.flag(.strict)
        load.limits = limits
        // A scene response carries the image and `Server-Timing`, never the report, so the up
        // estimate is made only when it decides the frame (`/v1/info` makes its own).
        load.upEstimate = .whenItDecides
        return load
    }

    private static func unknown(_ name: String, route: SceneRoute) -> SplatError {
        let where_ = "POST \(route.rawValue)"
        if OptionTable.option(named: name) != nil {
            return SplatError(.invalidArgument, "parameter \(name) does not apply to \(where_); it takes \(route.parameterNames.joined(separator: ", "))",
                              field: name)
        }
        var message = "unknown parameter \(name) for \(where_)"
        if let guess = OptionTable.closestName(to: name, among: route.parameterNames) { message += "; did you mean \(guess)?" }
        return SplatError(.invalidArgument, message, field: name)
    }

    // MARK: - The jobs

    /// `output=` and `quality=` for the still the route returns.
    public var encoding: ImageEncoding { options.imageEncoding }

    /// The name a held still goes by: its extension picks the format when `output=` is absent
    /// (nil for a render, whose bytes go to the caller as `--out -` sends them to stdout).
    private var stillName: String? {
        route == .sheet ? "sheet.png" : nil
    }

    /// The image format of the response body (nil for info).
    public var imageFormat: ImageFormat? {
        switch route {
        case .render, .sheet: (try? encoding.resolvedFormat(for: stillName)) ?? .png
        case .animation: .webp
        case .info: nil
        }
    }

    /// The scene job of a render, sheet or animation request on `input`, stopped by `cancellation`.
    public func sceneJob(input: SceneInput, cancellation: CancellationToken? = nil) -> SceneJob {
        let parsed = options
        var job = SceneJob(command: "serve", input: input, load: load, view: parsed.viewRequest, orbit: parsed.orbitOptions,
                           cancellation: cancellation)
        switch route {
        case .render:
            job.image = .caller
        case .sheet:
            job.sheet = SheetOutput(path: stillName ?? "sheet.png", plan: parsed.sheetPlan)
        case .animation:
            job.animation = AnimationOutput(path: "animation.webp", options: parsed.animationOptions)
        case .info:
            break
        }
        job.holdsOutputs = true
        job.memoryBudget = settings.memoryBudgetBytes
        job.encoding = encoding
        return job
    }

    /// The info job of an info request on `input`.
    public func infoJob(input: SceneInput) -> InfoJob {
        InfoJob(input: input, load: load, decodeBounds: options.flag(.bounds))
    }

    /// What admitting a scene with `header` whose input is `inputBytes` long takes: the job's
    /// estimated peak, and the error that refuses it (the declared size over the limits, or the
    /// estimate over the budget) when it may not start. An info request is never refused for its
    /// size — info describes scenes over the ceiling — and holds only its body unless `bounds=1`
    /// decodes it.
    public func admission(header: SceneHeader, inputBytes: Int) -> (estimatedBytes: Int, refusal: SplatError?) {
        var job = sceneJob(input: .path(Self.inputName))
        guard route != .info else {
            guard options.flag(.bounds) else { return (inputBytes, nil) }
            job.image = nil
            let verdict = SceneAdmission.verdict(for: job, header: header, inputBytes: inputBytes, memoryBudget: nil)
            return (verdict.estimate?.totalBytes ?? inputBytes, nil)
        }
        let verdict = SceneAdmission.verdict(for: job, header: header, inputBytes: inputBytes, memoryBudget: settings.memoryBudgetBytes)
        return (verdict.estimate?.totalBytes ?? inputBytes, verdict.refusal(file: Self.inputName))
    }
}
