import Foundation
import SplatCore
import SplatService

/// The whole command line as one function: parse, dispatch, print, return the exit status.
/// The executable is a one-line call to this; tests call it with captured streams.
public enum CommandRunner {
    /// The executable's entry: installs the signal handling (SIGINT/SIGTERM cancel every job,
    /// which rolls back its outputs and reports; SIGPIPE becomes a write error) and runs on the
    /// process's own streams.
    public static func main(_ arguments: [String]) -> Int32 {
        SignalCancellation.install()
        return run(arguments, stdout: FileDescriptorOutput(descriptor: 1), stderr: FileDescriptorOutput(descriptor: 2),
                   cancellation: SignalCancellation.token, environment: ProcessInfo.processInfo.environment)
    }

    /// Runs `arguments` (without the program name) and returns the exit status (see `ExitCode`).
    /// `cancellation` stops the run's jobs (the executable passes the token SIGINT/SIGTERM cancel).
    /// A result that could not be written to standard output turns a success into exit 74.
    /// `environment` supplies the options of commands that read it (`worker`).
    public static func run(_ arguments: [String], stdin: InputSource = .standardInput,
                           stdout: OutputSink, stderr: OutputSink,
                           cancellation: CancellationToken = CancellationToken(),
                           environment: [String: String] = [:]) -> Int32 {
        let status = dispatch(arguments, stdin: stdin, stdout: stdout, stderr: stderr, cancellation: cancellation,
                              environment: environment)
        if let failure = stdout.writeFailure {
            stderr.write("error: cannot write to standard output: \(failure)\n")
            return status == ExitCode.ok.rawValue || status == ExitCode.someInputsFailed.rawValue
                ? ExitCode.outputIOError.rawValue : status
        }
        return status
    }

    private static func dispatch(_ arguments: [String], stdin: InputSource, stdout: OutputSink, stderr: OutputSink,
                                 cancellation: CancellationToken, environment: [String: String]) -> Int32 {
        let parsed: ParsedCommand
        do throws(UsageError) {
            parsed = try CommandLineParser.parse(arguments, environment: environment)
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
        let context = CommandContext(parsed: parsed, stdin: stdin, stdout: stdout, stderr: stderr, cancellation: cancellation)
        let status: Int32
        switch parsed.command {
        case .info: status = InfoCommand.run(context)
        case .convert: status = ConvertCommand.run(context)
        case .render: status = RenderCommand.run(context)
        case .turntable: status = TurntableCommand.run(context)
        case .thumbnails: status = ThumbnailsCommand.run(context)
        // SIGTERM is how a worker is asked to stop: its exit status stays its own (0).
        case .worker: return WorkerCommand.run(context)
        case .help: status = ExitCode.ok.rawValue
        }
        return context.signalled(status)
    }
}
