import SplatCore
import SplatService

/// The whole command line as one function: parse, dispatch, print, return the exit status.
/// The executable is a one-line call to this; tests call it with captured streams.
public enum CommandRunner {
    /// Runs `arguments` (without the program name) and returns the exit status (see `ExitCode`).
    public static func run(_ arguments: [String], stdin: InputSource = .standardInput,
                           stdout: OutputSink, stderr: OutputSink) -> Int32 {
        let parsed: ParsedCommand
        do throws(UsageError) {
            parsed = try CommandLineParser.parse(arguments)
        } catch {
            stderr.write("error: \(error.message) (see --help)\n")
            return ExitCode.usage.rawValue
        }
        if parsed.wantsVersion {
            stdout.write("\(ProgramInfo.name) \(ProgramInfo.version)\n")
            return ExitCode.ok.rawValue
        }
        if parsed.command == .help {
            let topic = parsed.positionals.first.flatMap(CommandName.init(rawValue:))
            stdout.write(topic.map(HelpText.forCommand) ?? HelpText.overview())
            return ExitCode.ok.rawValue
        }
        if parsed.wantsHelp {
            stdout.write(HelpText.forCommand(parsed.command))
            return ExitCode.ok.rawValue
        }
        let context = CommandContext(parsed: parsed, stdin: stdin, stdout: stdout, stderr: stderr)
        switch parsed.command {
        case .info: return InfoCommand.run(context)
        case .convert: return ConvertCommand.run(context)
        case .render: return RenderCommand.run(context)
        case .turntable: return TurntableCommand.run(context)
        case .thumbnails: return ThumbnailsCommand.run(context)
        case .help: return ExitCode.ok.rawValue
        }
    }
}
