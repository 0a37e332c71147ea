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

/// A bad command line: what is wrong, for `error: <message> (see --help)` and exit status 64.
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
    /// Values of the options given on the command line, by long name.
    public var given: [String: OptionValue]
    /// Values of absent options that have a default, by long name.
    public var defaults: [String: OptionValue]

    public init(command: CommandName, positionals: [String] = [], given: [String: OptionValue] = [:],
                defaults: [String: OptionValue] = [:]) {
        self.command = command
        self.positionals = positionals
        self.given = given
        self.defaults = defaults
    }

    /// The given value, else the default, else nil.
    public func value(_ name: String) -> OptionValue? { given[name] ?? defaults[name] }

    /// Whether the option was on the command line.
    public func isGiven(_ name: String) -> Bool { given[name] != nil }

    public func flag(_ name: String) -> Bool { given[name] == .flag }

    public func text(_ name: String) -> String? {
        if case .text(let v)? = value(name) { return v }
        return nil
    }

    public func integer(_ name: String) -> Int? {
        if case .integer(let v)? = value(name) { return v }
        return nil
    }

    public func number(_ name: String) -> Double? {
        if case .number(let v)? = value(name) { return v }
        return nil
    }

    public func vector(_ name: String) -> SIMD3<Double>? {
        if case .vector(let v)? = value(name) { return v }
        return nil
    }

    public func resolution(_ name: String) -> (width: Int, height: Int)? {
        if case .resolution(let w, let h)? = value(name) { return (w, h) }
        return nil
    }

    public func frame(_ name: String) -> CoordinateSystem? {
        if case .frame(let v)? = value(name) { return v }
        return nil
    }

    public func format(_ name: String) -> SplatFormat? {
        if case .format(let v)? = value(name) { return v }
        return nil
    }

    public func choice(_ name: String) -> String? {
        if case .choice(let v)? = value(name) { return v }
        return nil
    }

    public func numbers(_ name: String) -> [Double]? {
        if case .numbers(let v)? = value(name) { return v }
        return nil
    }

    /// Whether `--help` was asked for (positional counts are then not enforced).
    public var wantsHelp: Bool { flag("help") || command == .help }
    public var wantsVersion: Bool { flag("version") }
}
