import SplatCore
import SplatFormats

/// Turns arguments into a `ParsedCommand`, driven entirely by `CommandLineSpec`. A pure function
/// of its input: no I/O, no globals.
///
/// Rules: the first argument selects the command when it is a command name, otherwise the
/// command is `render` and every argument belongs to it. `--key value` and `--key=value` both
/// work; an option that takes a value always consumes the next argument, even one starting with
/// `-` (`--camera-pos -1.5,0.2,3`). `--` ends the options; `-` alone is a positional (standard
/// input or output). A repeated option keeps its last value.
public enum CommandLineParser {
    public static func parse(_ arguments: [String]) throws(UsageError) -> ParsedCommand {
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
            parsed.given[spec.name] = try parseValue(raw, for: spec)
        }

        for spec in CommandLineSpec.options(for: command) where parsed.given[spec.name] == nil {
            guard let text = spec.defaultValue else { continue }
            parsed.defaults[spec.name] = try parseValue(text, for: spec)
        }

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
            spec = CommandLineSpec.option(named: String(name))
        } else {
            shown = argument
            let letters = argument.dropFirst()
            spec = letters.count == 1 ? CommandLineSpec.option(short: letters.first!) : nil
        }
        guard let spec else {
            var message = "unknown option \(shown)"
            if let guess = closestOption(to: shown, command: command) { message += "; did you mean --\(guess)?" }
            throw UsageError(message)
        }
        guard spec.commands.contains(command) else {
            let takers = CommandName.allCases.filter { spec.commands.contains($0) }.map(\.rawValue).joined(separator: ", ")
            throw UsageError("option --\(spec.name) does not apply to \(command.rawValue) (only to \(takers))")
        }
        return (spec.resolved(for: command), inlineValue)
    }

    static func checkPositionals(_ parsed: ParsedCommand) throws(UsageError) {
        let spec = CommandLineSpec.command(parsed.command)
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

    /// Validates one value against its option's kind.
    static func parseValue(_ raw: String, for spec: OptionSpec) throws(UsageError) -> OptionValue {
        func bad(_ expected: String) -> UsageError {
            UsageError("invalid value '\(raw)' for --\(spec.name): expected \(expected)")
        }
        switch spec.kind {
        case .flag:
            return .flag
        case .text:
            guard !raw.isEmpty else { throw bad("a non-empty value") }
            return .text(raw)
        case .integer(let range):
            guard let v = Int(raw.trimmingSpaces), range.contains(v) else {
                throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return .integer(v)
        case .number(let range):
            guard let v = finiteNumber(raw), range.contains(v) else {
                throw bad("a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound))")
            }
            return .number(v)
        case .vector3:
            guard let v = triple(raw) else { throw bad("three numbers x,y,z, e.g. -1.5,0.2,3") }
            return .vector(v)
        case .colour:
            guard let v = triple(raw), (0...1).contains(v.x), (0...1).contains(v.y), (0...1).contains(v.z) else {
                throw bad("three numbers r,g,b from 0 to 1, e.g. 1,1,1")
            }
            return .vector(v)
        case .resolution:
            let parts = raw.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  (1...16384).contains(w), (1...16384).contains(h) else {
                throw bad("WxH with each side from 1 to 16384, e.g. 512x512")
            }
            return .resolution(width: w, height: h)
        case .frame:
            guard let frame = CoordinateSystem(name: raw) else {
                throw bad("a frame name: " + CoordinateSystem.allCases.map(\.name).joined(separator: ", ")
                          + " or ply, opencv, colmap, opengl, threejs, gltf, unity, blender")
            }
            return .frame(frame)
        case .format:
            let key = raw.lowercased().replacingOccurrences(of: "-", with: "_")
            guard let format = SplatFormat(rawValue: key) else {
                throw bad("a format: " + SplatFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .format(format)
        case .byteCount:
            guard let bytes = byteCount(raw) else {
                throw bad("a byte count such as 805306368, 768M or 768MiB")
            }
            return .integer(bytes)
        case .choice(let words), .optionalChoice(let words, _):
            let key = raw.lowercased()
            guard words.contains(key) else { throw bad("one of " + words.joined(separator: ", ")) }
            return .choice(key)
        case .numberList(let range):
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
            var values: [Double] = []
            for part in parts {
                guard let v = finiteNumber(part), range.contains(v) else {
                    throw bad("comma-separated numbers from \(formatted(range.lowerBound)) to \(formatted(range.upperBound)), e.g. 10,40")
                }
                values.append(v)
            }
            return .numbers(values)
        }
    }

    static func finiteNumber(_ text: some StringProtocol) -> Double? {
        guard let v = Double(String(text).trimmingSpaces), v.isFinite else { return nil }
        return v
    }

    static func triple(_ raw: String) -> SIMD3<Double>? {
        let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, let x = finiteNumber(parts[0]), let y = finiteNumber(parts[1]),
              let z = finiteNumber(parts[2]) else { return nil }
        return SIMD3(x, y, z)
    }

    /// `805306368`, `768M`, `768MiB`, `1G`: binary multiples; nil when not a non-negative count or on overflow.
    static func byteCount(_ raw: String) -> Int? {
        let text = raw.trimmingSpaces
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let base = Int(digits) else { return nil }
        let shift: Int
        switch text.dropFirst(digits.count).lowercased() {
        case "", "b": shift = 0
        case "k", "kib", "kb": shift = 10
        case "m", "mib", "mb": shift = 20
        case "g", "gib", "gb": shift = 30
        case "t", "tib", "tb": shift = 40
        default: return nil
        }
        return CheckedSize.mul(base, 1 << shift)
    }

    static func formatted(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// The option of `command` nearest to a misspelt one, when it is close enough to be a typo.
    static func closestOption(to shown: String, command: CommandName) -> String? {
        let typed = shown.drop { $0 == "-" }.split(separator: "=").first.map(String.init) ?? ""
        guard typed.count >= 2 else { return nil }
        var best: (name: String, distance: Int)?
        for spec in CommandLineSpec.options(for: command) {
            let d = editDistance(typed, spec.name)
            if d <= max(1, spec.name.count / 3), d < (best?.distance ?? Int.max) { best = (spec.name, d) }
        }
        return best?.name
    }

    /// Levenshtein distance (insertions, deletions, substitutions).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
