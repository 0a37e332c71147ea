import SplatService
/// `--help` output, generated from `OptionTable` so it always matches what the parser accepts.
public enum HelpText {
    /// The overview: commands, common options, exit codes.
    public static func overview() -> String {
        let name = ProgramInfo.name
        var out = "\(name) \(ProgramInfo.version): decode 3D Gaussian splat scenes (SPZ, PLY, compressed PLY, SOG, .splat, glTF, .ksplat) and render them on the CPU\n\n"
        out += "usage:\n"
        for spec in OptionTable.commands {
            out += "  \(name) \(spec.synopsis)\n"
        }
        out += "\ncommands:\n"
        let width = OptionTable.commands.map(\.name.rawValue.count).max() ?? 0
        for spec in OptionTable.commands {
            out += "  " + pad(spec.name.rawValue, width) + "  " + spec.summary + "\n"
        }
        out += "\nRun '\(name) help COMMAND' or '\(name) COMMAND --help' for its options.\n"
        out += "\nexit status:\n"
        for code in ExitCode.allCases {
            out += "  " + pad(String(code.rawValue), 3) + "  " + meaning(code) + "\n"
        }
        return out
    }

    /// Usage and options of one command.
    public static func forCommand(_ command: CommandName) -> String {
        if command == .help { return overview() }
        let spec = OptionTable.command(command)
        var out = "usage: \(ProgramInfo.name) \(spec.synopsis)\n\n"
        out += wrap(spec.details.split(separator: "\n").joined(separator: " "), width: 96, indent: "") + "\n\noptions:\n"
        // The command's own options first, then those every decoding command shares.
        let all = OptionTable.options(for: command)
        let shared = { (o: OptionSpec) in o.commands.isSuperset(of: OptionTable.decoding) }
        let options = all.filter { !shared($0) } + all.filter(shared)
        let width = min(34, options.map(\.signature.count).max() ?? 0)
        for option in options {
            var help = option.help
            if let d = option.defaultValue { help += " (default \(d))" }
            let left = "  " + option.signature
            let indent = String(repeating: " ", count: width + 4)
            let body = wrap(help, width: 100 - indent.count, indent: indent)
            if option.signature.count > width {
                out += left + "\n" + indent + body.drop { $0 == " " } + "\n"
            } else {
                out += "  " + pad(option.signature, width) + "  " + body.drop { $0 == " " } + "\n"
            }
        }
        if spec.readsEnvironment { out += environment(options) }
        return out
    }

    /// The variables a service command reads its options from, one per option.
    static func environment(_ options: [OptionSpec]) -> String {
        let named = options.filter { $0.name != .help && $0.name != .version }
        let variables = named.map { OptionTable.environmentVariable(for: $0.name) }
        let width = variables.map(\.count).max() ?? 0
        var out = "\nenvironment (each option may be set as a variable; the command line wins):\n"
        for (option, variable) in zip(named, variables) {
            out += "  " + pad(variable, width) + "  --\(option.name)\n"
        }
        return out
    }

    static func meaning(_ code: ExitCode) -> String {
        switch code {
        case .ok: "success (info reports a file over the ceiling and still exits 0)"
        case .usage: "bad command line"
        case .dataError: "the input is not a valid or supported splat file, or renders blank (below --min-coverage)"
        case .noInput: "the input cannot be opened or read"
        case .internalError: "internal error"
        case .cannotCreate: "an output file cannot be written"
        case .outputIOError: "writing to standard output failed"
        case .tooLarge: "refused by a resource ceiling (too_large), e.g. the scene exceeds --max-decoded-bytes"
        case .timeout: "a deadline expired (--timeout)"
        case .interrupted: "stopped by SIGINT (outputs rolled back, in-flight inputs reported as interrupted)"
        case .terminated: "stopped by SIGTERM (outputs rolled back, in-flight inputs reported as interrupted)"
        case .someInputsFailed: "thumbnails: at least one input failed (see its report line); the others were written"
        }
    }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }

    /// Greedy word wrap; continuation lines start with `indent`.
    static func wrap(_ text: String, width: Int, indent: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.enumerated().map { $0.offset == 0 ? indent + $0.element : indent + $0.element }.joined(separator: "\n")
    }
}
