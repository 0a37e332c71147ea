import SplatCore
import SplatFormats

/// A validated option value, typed by its `OptionKind`.
public enum OptionValue: Sendable, Equatable {
    case flag
    case text(String)
    case integer(Int)
    case number(Double)
    case vector(SIMD3<Double>)
    case resolution(width: Int, height: Int)
    case frame(CoordinateSystem)
    case format(SplatFormat)
    case choice(String)
    case numbers([Double])
}

/// A bad request: what is wrong with the options, for `error: <message> (see --help)` and exit
/// status 64 on the command line, a 400 from the server, a `bad_job` in the fleet.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The result of parsing: which command, its positional arguments, and every option value
/// (given or defaulted), already validated.
public struct ParsedCommand: Sendable, Equatable {
    public var command: CommandName
    public var positionals: [String]
    /// Values of the options given, by name.
    public var given: [OptionName: OptionValue]
    /// Values of absent options that have a default, by name.
    public var defaults: [OptionName: OptionValue]

    public init(command: CommandName, positionals: [String] = [], given: [OptionName: OptionValue] = [:],
                defaults: [OptionName: OptionValue] = [:]) {
        self.command = command
        self.positionals = positionals
        self.given = given
        self.defaults = defaults
    }

    /// The given value, else the default, else nil.
    public func value(_ name: OptionName) -> OptionValue? { given[name] ?? defaults[name] }

    /// Whether the option was on the command line.
    public func isGiven(_ name: OptionName) -> Bool { given[name] != nil }

    public func flag(_ name: OptionName) -> Bool { given[name] == .flag }

    public func text(_ name: OptionName) -> String? {
        if case .text(let v)? = value(name) { return v }
        return nil
    }

    public func integer(_ name: OptionName) -> Int? {
        if case .integer(let v)? = value(name) { return v }
        return nil
    }

    public func number(_ name: OptionName) -> Double? {
        if case .number(let v)? = value(name) { return v }
        return nil
    }

    public func vector(_ name: OptionName) -> SIMD3<Double>? {
        if case .vector(let v)? = value(name) { return v }
        return nil
    }

    public func resolution(_ name: OptionName) -> (width: Int, height: Int)? {
        if case .resolution(let w, let h)? = value(name) { return (w, h) }
        return nil
    }

    public func frame(_ name: OptionName) -> CoordinateSystem? {
        if case .frame(let v)? = value(name) { return v }
        return nil
    }

    public func format(_ name: OptionName) -> SplatFormat? {
        if case .format(let v)? = value(name) { return v }
        return nil
    }

    public func choice(_ name: OptionName) -> String? {
        if case .choice(let v)? = value(name) { return v }
        return nil
    }

    public func numbers(_ name: OptionName) -> [Double]? {
        if case .numbers(let v)? = value(name) { return v }
        return nil
    }

    /// Fills `defaults` for every option of the command that was not given, parsing each default
    /// exactly like a given value (so the table's defaults are validated too).
    public mutating func applyDefaults() throws(UsageError) {
        for spec in OptionTable.options(for: command) where given[spec.name] == nil {
            guard let text = spec.defaultValue else { continue }
            defaults[spec.name] = try OptionValueParser.parse(text, for: spec)
        }
    }

    /// Whether `--help` was asked for (positional counts are then not enforced).
    public var wantsHelp: Bool { flag(.help) || command == .help }
    public var wantsVersion: Bool { flag(.version) }
}
