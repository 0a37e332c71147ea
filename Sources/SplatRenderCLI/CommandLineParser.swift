import SplatCore
import SplatFormats
import SplatService

/// Turns arguments into a `ParsedCommand`, driven entirely by `OptionTable`. A pure function
/// of its input: no I/O, no globals.
///
/// Rules: the first argument selects the command when it is a command name, otherwise the
/// command is `render` and every argument belongs to it. `--key value` and `--key=value` both
/// work; an option that takes a value always consumes the next argument, even one starting with
/// `-` (`--camera-pos -1.5,0.2,3`). `--` ends the options; `-` alone is a positional (standard
/// input or output). A repeated option keeps its last value. Commands that read the environment
/// (`worker`) take what the command line left out from `environment` (see `applyEnvironment`).
public enum CommandLineParser {
    public static func parse(_ arguments: [String], environment: [String: String] = [:]) throws(UsageError) -> ParsedCommand {
        guard let first = arguments.first else {
            throw UsageError("no command or scene given")
        }
        // `splatrender --help` / `-h` alone is the overview, not render's help.
        if arguments.count == 1 && (first == "--help" || first == "-h") {
            return ParsedCommand(command: .help)
        }
        let command: CommandName
        let rest: ArraySlice<String>
        if let named = CommandName(rawValue: first) {
            command = named
            rest = arguments.dropFirst()
        } else {
            command = .render
            rest = arguments[...]
        }

        var parsed = ParsedCommand(command: command)
        var endOfOptions = false
        var index = rest.startIndex
        while index < rest.endIndex {
            let argument = rest[index]
            index += 1
            if endOfOptions || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" {
                endOfOptions = true
                continue
            }
            let (spec, inlineValue) = try lookUp(argument, command: command)
            if spec.kind == .flag {
                if inlineValue != nil {
                    throw UsageError("option --\(spec.name) takes no value")
                }
                parsed.given[spec.name] = .flag
                continue
            }
            if case .optionalChoice(let words, let bare) = spec.kind, inlineValue == nil {
                if index < rest.endIndex, words.contains(rest[index].lowercased()) {
                    parsed.given[spec.name] = .choice(rest[index].lowercased())
                    index += 1
                } else {
                    parsed.given[spec.name] = .choice(bare)
                }
                continue
            }
            let raw: String
            if let inlineValue {
                raw = inlineValue
            } else if index < rest.endIndex {
                raw = rest[index]
                index += 1
            } else {
                throw UsageError("option --\(spec.name) needs a value (\(spec.placeholder ?? spec.kind.placeholder))")
            }
            parsed.given[spec.name] = try OptionValueParser.parse(raw, for: spec)
        }

        if OptionTable.command(command).readsEnvironment { try parsed.applyEnvironment(environment) }
        try parsed.applyDefaults()

        if !parsed.wantsHelp && !parsed.wantsVersion {
            try checkPositionals(parsed)
        }
        if command == .help, let topic = parsed.positionals.first, CommandName(rawValue: topic) == nil {
            throw UsageError("unknown command '\(topic)'; commands: " + CommandName.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return parsed
    }

    /// Finds the table row for `--name`, `--name=value` or `-x`.
    static func lookUp(_ argument: String, command: CommandName) throws(UsageError) -> (OptionSpec, String?) {
        let spec: OptionSpec?
        var inlineValue: String?
        let shown: String
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            let name: Substring
            if let eq = body.firstIndex(of: "=") {
                name = body[..<eq]
                inlineValue = String(body[body.index(after: eq)...])
            } else {
                name = body
            }
            shown = "--" + name
            spec = OptionTable.option(named: String(name))
        } else {
            shown = argument
            let letters = argument.dropFirst()
            spec = letters.count == 1 ? OptionTable.option(short: letters.first!) : nil
        }
        guard let spec else {
            var message = "unknown option \(shown)"
            if let guess = OptionTable.closestOption(to: shown, command: command) { message += "; did you mean --\(guess)?" }
            throw UsageError(message)
        }
        guard spec.commands.contains(command) else {
            let takers = CommandName.allCases.filter { spec.commands.contains($0) }.map(\.rawValue).joined(separator: ", ")
            throw UsageError("option --\(spec.name) does not apply to \(command.rawValue) (only to \(takers))")
        }
        return (spec.resolved(for: command), inlineValue)
    }

    static func checkPositionals(_ parsed: ParsedCommand) throws(UsageError) {
        let spec = OptionTable.command(parsed.command)
        let count = parsed.positionals.count
        if count < spec.positionalCount.lowerBound {
            let missing = spec.positionals[count...].joined(separator: " ")
            throw UsageError("\(parsed.command.rawValue) needs \(missing)")
        }
        if count > spec.positionalCount.upperBound {
            let extra = parsed.positionals[spec.positionalCount.upperBound...].map { "'\($0)'" }.joined(separator: " ")
            throw UsageError("unexpected argument \(extra) for \(parsed.command.rawValue)")
        }
    }
}
