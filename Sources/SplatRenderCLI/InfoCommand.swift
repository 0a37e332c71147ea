import SplatCore
import SplatService

/// `splatrender info FILE [--json] [--bounds]`: prints what `InfoJob` finds. A scene over the
/// ceiling is reported with exit status 0, not refused; only `--bounds` decodes.
enum InfoCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let path = parsed.positionals[0]
        let job = InfoJob(input: context.sceneInput(path), load: parsed.loadOptions, decodeBounds: parsed.flag(.bounds))
        let info: SceneInfo
        do throws(SplatError) {
            info = try job.run()
        } catch {
            return context.failInput(error)
        }
        if parsed.flag(.json) {
            context.say(info.json.serialized())
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
