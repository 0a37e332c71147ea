import SplatCore
import SplatService

/// `splatrender info FILE... [--json] [--bounds] [--stats]`: prints what `InfoJob` finds for each file —
/// text blocks, or one JSON line per file with `--json` (a file that cannot be read gives a JSON
/// line with its `error`). A scene over the ceiling is reported, not refused; only `--bounds`
/// and `--stats` decode. Exit status: one file, that file's; several, 0 when all were read and 2 when some
/// were not.
enum InfoCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let paths = parsed.positionals
        let json = parsed.flag(.json)
        var statuses: [Int32] = []
        for (i, path) in paths.enumerated() {
            let status = describe(path, context: context)
            statuses.append(status)
            if !json && paths.count > 1 && i < paths.count - 1 { context.say("") }
        }
        if statuses.count == 1 { return statuses[0] }
        return statuses.allSatisfy { $0 == ExitCode.ok.rawValue } ? ExitCode.ok.rawValue : ExitCode.someInputsFailed.rawValue
    }

    /// One file: its description (or error) printed; returns its exit status.
    private static func describe(_ path: String, context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let json = parsed.flag(.json)
        let info: SceneInfo
        do throws(SplatError) {
            let load = try context.loadOptions()
            let job = InfoJob(input: try context.sceneInput(path), load: load, decodeBounds: parsed.flag(.bounds),
                              computeStatistics: parsed.flag(.stats))
            info = try job.run()
        } catch {
            if json { context.say(JSONValue.object([("file", .string(path)), ("error", error.json)]).serialized(pretty: false)) }
            return context.failInput(error)
        }
        if json {
            context.say(info.json.serialized(pretty: context.parsed.positionals.count == 1))
        } else {
            context.say(text(info.rows))
        }
        if let boundsError = info.boundsError { return context.failInput(boundsError) }
        return ExitCode.ok.rawValue
    }

    /// Aligned "label: value" rows; multi-line values are indented under their first line.
    static func text(_ rows: [(String, String)]) -> String {
        let width = rows.map(\.0.count).max() ?? 0
        let continuation = "\n" + String(repeating: " ", count: width + 2)
        return rows.map {
            HelpText.pad($0.0 + ":", width + 1) + " " + $0.1.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: continuation)
        }.joined(separator: "\n")
    }
}
