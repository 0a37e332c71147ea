import SplatService

/// The four job routes of the thumbnail API and the query parameters each takes: the long
/// option names of the command it stands for (`render`, `turntable`'s sheet or animation,
/// `info`), read by the same option table, minus what a server decides itself — paths (the
/// server reads and writes no files), output and progress printing, threads, the memory budget
/// and the input cap — and minus the other output's options on the turntable routes.
public enum SceneRoute: String, Sendable, CaseIterable {
    case render = "/v1/render"
    case sheet = "/v1/sheet"
    case animation = "/v1/animation"
    case info = "/v1/info"

    /// The command whose options the route takes.
    public var command: CommandName {
        switch self {
        case .render: .render
        case .sheet, .animation: .turntable
        case .info: .info
        }
    }

    /// Options no route takes: the server sets them, or they name files.
    static let serverOwned: Set<OptionName> = [
        .help, .version, .json, .progress, .verbose, .quiet, .threads, .memoryBudget, .maxInputBytes,
        .outFormat, .imageFormat, .jobs, .fromStdin, .skipExisting, .turntable, .frames,
    ]

    /// Options the route's command takes that this route does not.
    private var excluded: Set<OptionName> {
        switch self {
        case .render, .info: []
        case .sheet: [.frameMs, .animationQuality, .animationEffort]
        case .animation: [.sheetViews, .sheetElevations, .sheetDownscale, .quality]
        }
    }

    /// Parameters that are not option names: `output` names the image format (the command
    /// line's `--out-format`) on the routes that return a still.
    var aliases: [String: OptionName] {
        switch self {
        case .render, .sheet: ["output": .outFormat]
        case .animation, .info: [:]
        }
    }

    /// Options the route adds to its command's: every job has a deadline (`timeout=`), and an
    /// animation's frame count is `frames=`.
    private var added: [OptionName] {
        switch self {
        case .render, .sheet: []
        case .animation: [.frames]
        case .info: [.timeout]
        }
    }

    /// The rows of the route's parameters, by parameter name, each as the route's command sees it.
    public var parameters: [String: OptionSpec] { Self.table[self] ?? [:] }

    private static let table: [SceneRoute: [String: OptionSpec]] = Dictionary(uniqueKeysWithValues: allCases.map { route in
        var rows: [String: OptionSpec] = [:]
        for spec in OptionTable.options(for: route.command)
        where spec.kind != .text && !serverOwned.contains(spec.name) && !route.excluded.contains(spec.name) {
            rows[spec.name.rawValue] = spec
        }
        // The added rows and the aliased `--out-format` have no variants.
        for name in route.added { rows[name.rawValue] = OptionTable.option(name) }
        for (alias, name) in route.aliases { rows[alias] = OptionTable.option(name) }
        return (route, rows)
    })

    /// Parameter names, sorted, for messages and documentation.
    public var parameterNames: [String] { parameters.keys.sorted() }
}
