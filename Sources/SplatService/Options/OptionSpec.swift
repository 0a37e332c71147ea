/// One row of the option table.
public struct OptionSpec: Sendable {
    /// Long name without the leading dashes, e.g. `camera-pos`.
    public let name: OptionName
    /// Optional one-letter alias, e.g. `o` for `-o`.
    public let short: Character?
    public let kind: OptionKind
    /// The value used when the option is absent, written as the user would type it (so it is
    /// parsed and validated exactly like a given value, and shown as-is in help).
    public let defaultValue: String?
    /// Placeholder in help when the kind's generic one says too little (e.g. `PATH.png`).
    public let placeholder: String?
    public let help: String
    /// The commands that accept this option.
    public let commands: Set<CommandName>
    /// Commands on which the option takes another kind of value or means something a little
    /// different (`--sheet FILE.png` on turntable, `--sheet` alone on thumbnails). Names stay
    /// unique across the table; `resolved(for:)` gives the row as a command sees it.
    public let variants: [CommandName: OptionVariant]

    init(_ name: OptionName, short: Character? = nil, _ kind: OptionKind, default defaultValue: String? = nil,
         placeholder: String? = nil, for commands: Set<CommandName>, _ help: String,
         variants: [CommandName: OptionVariant] = [:]) {
        self.name = name
        self.short = short
        self.kind = kind
        self.defaultValue = defaultValue
        self.placeholder = placeholder
        self.help = help
        self.commands = commands.union(variants.keys)
        self.variants = variants
    }

    /// The row as `command` sees it (its variant applied).
    public func resolved(for command: CommandName) -> OptionSpec {
        guard let v = variants[command] else { return self }
        return OptionSpec(name, short: short, v.kind, default: v.defaultValue, placeholder: v.placeholder,
                          for: commands, v.help)
    }

    /// `--name VALUE` as shown in help.
    public var signature: String {
        let value = placeholder ?? kind.placeholder
        let long = "--\(name)" + (value.isEmpty ? "" : " \(value)")
        if let short { return "-\(short), \(long)" }
        return "    \(long)"
    }
}

/// How an option differs on one command.
public struct OptionVariant: Sendable {
    public let kind: OptionKind
    public let defaultValue: String?
    public let placeholder: String?
    public let help: String

    init(_ kind: OptionKind, default defaultValue: String? = nil, placeholder: String? = nil, _ help: String) {
        self.kind = kind
        self.defaultValue = defaultValue
        self.placeholder = placeholder
        self.help = help
    }
}
