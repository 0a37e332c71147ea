import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// The single declarative description of the command line: every option with its value kind,
/// default, help text and the commands that take it. Parsing (`CommandLineParser`) and help
/// (`HelpText`) are both driven by these tables, so they cannot drift apart.
public enum OptionTable {
    public static let decoding: Set<CommandName> = [.render, .turntable, .thumbnails, .info, .convert]
    /// Commands that render images.
    public static let rendering: Set<CommandName> = [.render, .turntable, .thumbnails]
    /// Commands that orbit the scene (turntable frames, contact sheets, animations).
    public static let orbiting: Set<CommandName> = [.turntable, .thumbnails]
    public static let all: Set<CommandName> = Set(CommandName.allCases)

    /// The option table: every row, in help order.
    public static let options: [OptionSpec] = generalRows + decodingRows + renderingRows + orbitRows + workerRows



    /// A default number as a user would type it: `50`, not `50.0`.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The row for a long option name (without dashes).
    public static func option(named name: String) -> OptionSpec? {
        OptionName(rawValue: name).flatMap { option($0) }
    }

    /// The row for a typed name.
    public static func option(_ name: OptionName) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The row for a one-letter alias.
    public static func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }

    /// The row for a command.
    public static func command(_ name: CommandName) -> CommandSpec {
        commands.first { $0.name == name }!
    }

    /// The options `command` accepts, in table order, as that command sees them.
    public static func options(for command: CommandName) -> [OptionSpec] {
        options.filter { $0.commands.contains(command) }.map { $0.resolved(for: command) }
    }
}
