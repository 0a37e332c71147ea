import SplatCore
import SplatFormats

/// The commands `splatrender` knows. `render` is also what runs when the first argument is not a
/// command name (`splatrender scene.spz --out a.png`).
public enum CommandName: String, CaseIterable, Sendable {
    case render
    case info
    case convert
    case help
}

/// What kind of value an option takes; the parser validates every value against it.
public enum OptionKind: Sendable, Equatable {
    /// No value: present or absent.
    case flag
    /// Any text, usually a path (`-` for a standard stream).
    case text
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A finite number within the range.
    case number(ClosedRange<Double>)
    /// Three finite numbers `x,y,z`.
    case vector3
    /// Three numbers `r,g,b`, each within 0…1.
    case colour
    /// `WxH`, each side within 1…16384.
    case resolution
    /// One of the 16 coordinate-system names or an alias (`ply`, `opengl`, …).
    case frame
    /// One of the input formats.
    case format
    /// A byte count: a whole number with an optional binary suffix (K, M, G, KiB, MiB, GiB).
    case byteCount
    /// One of a fixed list of words.
    case choice([String])

    /// The placeholder shown in help, e.g. `WxH`.
    var placeholder: String {
        switch self {
        case .flag: ""
        case .text: "PATH"
        case .integer: "N"
        case .number: "DEG"
        case .vector3: "X,Y,Z"
        case .colour: "R,G,B"
        case .resolution: "WxH"
        case .frame: "FRAME"
        case .format: "FORMAT"
        case .byteCount: "BYTES"
        case .choice(let words): words.joined(separator: "|")
        }
    }
}

/// One row of the option table.
public struct OptionSpec: Sendable {
    /// Long name without the leading dashes, e.g. `camera-pos`.
    public let name: String
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

    init(_ name: String, short: Character? = nil, _ kind: OptionKind, default defaultValue: String? = nil,
         placeholder: String? = nil, for commands: Set<CommandName>, _ help: String) {
        self.name = name
        self.short = short
        self.kind = kind
        self.defaultValue = defaultValue
        self.placeholder = placeholder
        self.help = help
        self.commands = commands
    }

    /// `--name VALUE` as shown in help.
    var signature: String {
        let value = placeholder ?? kind.placeholder
        let long = "--\(name)" + (value.isEmpty ? "" : " \(value)")
        if let short { return "-\(short), \(long)" }
        return "    \(long)"
    }
}

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
}

/// The single declarative description of the command line: every option with its value kind,
/// default, help text and the commands that take it. Parsing (`CommandLineParser`) and help
/// (`HelpText`) are both driven by these tables, so they cannot drift apart.
public enum CommandLineSpec {
    /// The program name used in usage lines and `--version`.
    public static let programName = "splatrender"
    public static let version = "0.1.0"

    static let decoding: Set<CommandName> = [.render, .info, .convert]
    static let all: Set<CommandName> = Set(CommandName.allCases)

    /// The option table.
    public static let options: [OptionSpec] = [
        // Everywhere.
        OptionSpec("help", short: "h", .flag, for: all, "show help for the command and exit"),
        OptionSpec("version", .flag, for: all, "print the version and exit"),

        // Shared by every command that decodes a scene.
        OptionSpec("format", .format, for: decoding,
                   "read the input as FORMAT (spz, ply, compressed_ply, sog, splat) instead of detecting it; needed for .splat on standard input"),
        OptionSpec("max-decoded-bytes", .byteCount, default: String(DecodeLimits.serviceCeilingBytes), for: decoding,
                   "refuse to decode a scene whose decoded floats (or any inflated intermediate) would exceed BYTES; suffixes K, M, G (binary) accepted"),
        OptionSpec("max-sh-degree", .integer(0...4), for: decoding,
                   "drop spherical-harmonic bands above degree N while decoding (also lowers the declared decoded size)"),
        OptionSpec("source-frame", .frame, for: decoding,
                   "the frame the stored values are in (RUB, RDF, … or ply, opengl, gltf, unity, blender); overrides the file's declaration and the format's convention"),
        OptionSpec("flip", .flag, for: decoding,
                   "add a half turn about X after the frame conversion (fixes scenes that come out upside down)"),
        OptionSpec("strict", .flag, for: decoding,
                   "fail on the first splat with a NaN or infinite value instead of dropping it"),
        OptionSpec("threads", .integer(1...1024), for: decoding,
                   "worker threads for conversion and rendering (default: all cores)"),
        OptionSpec("verbose", short: "v", .flag, for: decoding,
                   "print the frame decision, the camera and stage timings"),
        OptionSpec("quiet", short: "q", .flag, for: decoding,
                   "print nothing but errors"),

        // info
        OptionSpec("json", .flag, for: [.info, .render, .convert],
                   "print the report as JSON instead of text (render and convert: the run report of --report)"),
        OptionSpec("bounds", .flag, for: [.info],
                   "also decode the scene and report the bounds of the stored positions"),

        // convert
        OptionSpec("to-frame", .frame, for: [.convert],
                   "convert the values from the source frame (see --source-frame) to FRAME before writing; default: write them in the source's own frame, unconverted"),
        OptionSpec("spz-version", .integer(3...4), for: [.convert],
                   "SPZ container version to write: 3 (gzip) or 4 (zstd, default of the encoder)"),

        // render
        OptionSpec("out", short: "o", .text, placeholder: "FILE.png", for: [.render],
                   "where to write the PNG; - writes it to standard output"),
        OptionSpec("resolution", .resolution, default: "512x512", for: [.render], "image width and height in pixels"),
        OptionSpec("camera-pos", .vector3, for: [.render],
                   "camera position in the render frame (RUB, after the frame conversion); default: the automatic three-quarter view"),
        OptionSpec("camera-target", .vector3, for: [.render],
                   "point the camera looks at; default: the centre found by the automatic framing"),
        OptionSpec("camera-up", .vector3, for: [.render],
                   "camera up direction; default: the automatic framing's up (+Y of the render frame)"),
        OptionSpec("camera-fov", .number(1...179), default: "50", placeholder: "DEG", for: [.render],
                   "vertical field of view in degrees"),
        OptionSpec("background", .colour, for: [.render],
                   "background colour, each channel 0–1; omitted: a transparent RGBA PNG"),
        OptionSpec("antialiased", .choice(["auto", "on", "off"]), default: "auto", for: [.render],
                   "mip-splatting opacity compensation: auto follows the file's flag"),
        OptionSpec("sh-degree", .integer(0...4), for: [.render],
                   "highest spherical-harmonic degree used for colour (default: all the scene has)"),
        OptionSpec("report", .text, placeholder: "FILE.json", for: [.render, .convert],
                   "also write the run report (input, status, header facts, ceiling verdict, frame, camera, outputs, stage times) as JSON"),
    ]

    /// The command table.
    public static let commands: [CommandSpec] = [
        CommandSpec(name: .render, synopsis: "[render] SCENE --out FILE.png [options]",
                    summary: "render a scene to a PNG (the default command)",
                    details: """
                    Decodes SCENE (a path, a SOG folder or meta.json, or - for standard input), converts it to the
                    render frame (RUB: x right, y up, z back) using the frame decision (--source-frame, then the
                    file's declaration, then the format's convention), and renders one image. Without a camera the
                    automatic three-quarter view is used; with only --camera-pos the camera looks at the framed centre.
                    Camera coordinates are in the render frame: with --source-frame RUB nothing is converted, so a
                    camera given in a file's stored coordinates works.
                    """,
                    positionals: ["SCENE"], positionalCount: 1...1),
        CommandSpec(name: .info, synopsis: "info FILE [--json] [--bounds] [options]",
                    summary: "describe a scene from its header",
                    details: """
                    Reads only the header (unless --bounds is given) and prints the format, version, splat count,
                    SH degree, model, frame decision with its reason, the declared decoded size and whether it fits
                    the 768 MiB service ceiling and --max-decoded-bytes, warnings and format details. A file over
                    the ceiling is reported (exit 0), not refused.
                    """,
                    positionals: ["FILE"], positionalCount: 1...1),
        CommandSpec(name: .convert, synopsis: "convert IN OUT.ply|OUT.spz [--to-frame FRAME] [--spz-version 3|4] [options]",
                    summary: "convert a scene to PLY or SPZ",
                    details: """
                    Decodes IN and writes OUT (format from its extension) atomically. By default the values are
                    written in the source's own stored frame, unconverted. With --to-frame the source frame (from
                    --source-frame, the file's declaration or the format's convention) is converted to FRAME. SPZ
                    output records the frame the data is in when it is known.
                    """,
                    positionals: ["IN", "OUT"], positionalCount: 2...2),
        CommandSpec(name: .help, synopsis: "help [COMMAND]", summary: "show help for a command",
                    details: "Prints the usage of COMMAND, or the overview when no command is given.",
                    positionals: ["COMMAND"], positionalCount: 0...1),
    ]

    /// The row for a long option name (without dashes).
    public static func option(named name: String) -> OptionSpec? {
        options.first { $0.name == name }
    }

    /// The row for a one-letter alias.
    public static func option(short: Character) -> OptionSpec? {
        options.first { $0.short == short }
    }

    /// The row for a command.
    public static func command(_ name: CommandName) -> CommandSpec {
        commands.first { $0.name == name }!
    }

    /// The options `command` accepts, in table order.
    public static func options(for command: CommandName) -> [OptionSpec] {
        options.filter { $0.commands.contains(command) }
    }
}
