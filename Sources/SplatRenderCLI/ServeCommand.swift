import SplatCore
import SplatServe
import SplatService

/// `splatrender serve [--listen HOST:PORT] …`: the thumbnail service. Builds the server from
/// the options (`ServeConfiguration`), starts it, prints `listening on HOST:PORT` (the bound
/// port, also for `--listen …:0`) on standard output, and on SIGTERM or SIGINT drains it
/// (`--grace`) and exits 0. It first raises its open-file limit to the hard limit
/// (`OpenFileLimit`).
enum ServeCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let configuration: ServeConfiguration
        do throws(SplatError) { configuration = try ServeConfiguration(context.parsed) } catch {
            return context.usage(error.message)
        }
        // Before the server sizes its connection limit to the descriptors it has.
        let files = OpenFileLimit.raiseSoftToHard()
        let server = configuration.makeServer()
        // Before start, so a signal in the first moments drains instead of killing the process.
        let shutdown = ShutdownSignal()
        do throws(SplatError) { try server.start() } catch {
            return context.fail(error, error.kind == .invalidArgument ? .usage : .cannotCreate)
        }
        var bound = configuration.http.listen
        bound.port = server.port
        context.stdout.write("listening on \(bound)\n")
        if server.connectionLimit < configuration.http.connectionLimit, let limit = files?.after.soft {
            context.stderr.write("open-file limit \(limit): accepting at most \(server.connectionLimit) connections at once, not \(configuration.http.connectionLimit)\n")
        }
        let signal = shutdown.wait()
        context.stderr.write("signal \(signal): draining (grace \(configuration.grace))\n")
        let outcome = server.drain(grace: configuration.grace)
        if !outcome.finishedInGrace {
            context.stderr.write("grace over: cancelled \(outcome.cancelledJobs) running jobs\n")
        }
        return ExitCode.ok.rawValue
    }
}
