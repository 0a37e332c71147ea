/// One command's synopsis and positional arguments.
public struct CommandSpec: Sendable {
    public let name: CommandName
    /// Text after `splatrender` in the usage line.
    public let synopsis: String
    public let summary: String
    /// Longer explanation shown by `help COMMAND`.
    public let details: String
    /// Names of the positional arguments, for messages.
    public let positionals: [String]
    /// How many positionals the command takes.
    public let positionalCount: ClosedRange<Int>
    /// Whether options missing from the command line are read from `SPLATRENDER_<NAME>`
    /// environment variables (the long-running services, as container deployments expect).
    public var readsEnvironment = false
}
