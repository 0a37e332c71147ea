import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// The single declarative description of the command line: every option with its value kind,
/// default, help text and the commands that take it. Parsing (`CommandLineParser`) and help
/// (`HelpText`) are both driven by these tables, so they cannot drift apart.
public enum OptionTable {
    public static let decoding: Set<CommandName> = [.render, .turntable, .thumbnails, .info, .convert]
    /// Commands that render images.
    public static let rendering: Set<CommandName> = [.render, .turntable, .thumbnails]
    /// Commands that orbit the scene (turntable frames, contact sheets, animations).
    public static let orbiting: Set<CommandName> = [.turntable, .thumbnails]
    public static let all: Set<CommandName> = Set(CommandName.allCases)

    /// The option table.
    public static let options: [OptionSpec] = [
        // Everywhere.
        OptionSpec(.help, short: "h", .flag, for: all, "show help for the command and exit"),
        OptionSpec(.version, .flag, for: all, "print the version and exit"),

        // Shared by every command that decodes a scene.
        OptionSpec(.format, .format, for: decoding,
                   "read the input as FORMAT (spz, ply, compressed_ply, sog, splat) instead of detecting it; needed for .splat on standard input"),
        OptionSpec(.maxDecodedBytes, .byteCount, default: String(DecodeLimits.serviceCeilingBytes), for: decoding,
                   "refuse to decode a scene whose decoded floats (or any inflated intermediate) would exceed BYTES; suffixes K, M, G (binary) accepted",
                   variants: [.thumbnails: OptionVariant(.byteCount, default: String(DecodeLimits.serviceCeilingBytes),
                                                         "per-file ceiling on the decoded size, and the budget for all running inputs together: an input starts only when the declared sizes (from the headers) of the running ones plus its own fit; a file alone over it fails with too_large without decoding")]),
        OptionSpec(.maxShDegree, .integer(0...4), for: decoding,
                   "drop spherical-harmonic bands above degree N while decoding (also lowers the declared decoded size)"),
        OptionSpec(.sourceFrame, .frame, for: decoding,
                   "the frame the stored values are in (RUB, RDF, … or ply, opengl, gltf, unity, blender); overrides the file's declaration and the format's convention"),
        OptionSpec(.flip, .flag, for: decoding,
                   "add a half turn about X after the frame conversion (fixes scenes that come out upside down)"),
        OptionSpec(.strict, .flag, for: decoding,
                   "fail on the first splat with a NaN or infinite value instead of dropping it"),
        OptionSpec(.maxInputBytes, .byteCount, for: decoding,
                   "read at most BYTES of a file or of standard input (default: 4 × the larger of --max-decoded-bytes and the 768 MiB ceiling, 3 GiB; an ASCII PLY is ~3.3× its decoded size); more fails with too_large before anything is decoded"),
        OptionSpec(.threads, .integer(1...1024), for: decoding,
                   "worker threads for conversion and rendering (default: all cores)"),
        OptionSpec(.verbose, short: "v", .flag, for: decoding,
                   "print the frame decision, the camera and stage timings"),
        OptionSpec(.quiet, short: "q", .flag, for: decoding,
                   "print nothing but errors (nor progress, unless that is asked for explicitly)"),

        // info
        OptionSpec(.json, .flag, for: [.info, .render, .convert, .turntable],
                   "print the report as JSON instead of text (render, turntable and convert: the run report of --report)",
                   variants: [.thumbnails: OptionVariant(.flag, "print each input's report line (JSON Lines) on standard output instead of a summary line")]),
        OptionSpec(.bounds, .flag, for: [.info],
                   "also decode the scene and report the bounds of the stored positions"),

        // convert
        OptionSpec(.toFrame, .frame, for: [.convert],
                   "convert the values from the source frame (see --source-frame) to FRAME before writing; default: write them in the source's own frame, unconverted"),
        OptionSpec(.spzVersion, .integer(3...4), for: [.convert],
                   "SPZ container version to write: 3 (gzip) or 4 (zstd, default of the encoder)"),

        // render, turntable, thumbnails
        OptionSpec(.out, short: "o", .text, placeholder: "FILE.png", for: [.render],
                   "where to write the PNG; - writes it to standard output",
                   variants: [.turntable: OptionVariant(.text, placeholder: "DIR",
                                                        "folder for the frames frame_000.png, frame_001.png, … (created if missing)")]),
        OptionSpec(.outDir, .text, placeholder: "DIR", for: [.thumbnails],
                   "folder for the outputs: <stem>.png, <stem>/frame_NNN.png, <stem>.sheet.png, <stem>.webp (created if missing)"),
        OptionSpec(.resolution, .resolution, default: "\(RenderSettings.defaultWidth)x\(RenderSettings.defaultHeight)", for: rendering, "image width and height in pixels"),
        OptionSpec(.cameraPos, .vector3, for: [.render],
                   "camera position in the render frame (RUB, after the frame conversion); default: the automatic three-quarter view"),
        OptionSpec(.cameraTarget, .vector3, for: [.render],
                   "point the camera looks at; default: the centre found by the automatic framing"),
        OptionSpec(.cameraUp, .vector3, for: rendering,
                   "camera up direction (also the orbit's axis); default: the automatic framing's up (+Y of the render frame)"),
        OptionSpec(.cameraFov, .number(1...179), default: OptionTable.text(Camera.defaultFovYDegrees), placeholder: "DEG", for: rendering,
                   "vertical field of view in degrees"),
        OptionSpec(.background, .colour, for: rendering,
                   "background colour, each channel 0–1; omitted: a transparent RGBA PNG"),
        OptionSpec(.antialiased, .choice(["auto", "on", "off"]), default: "auto", for: rendering,
                   "mip-splatting opacity compensation: auto follows the file's flag"),
        OptionSpec(.shDegree, .integer(0...4), for: rendering,
                   "highest spherical-harmonic degree used for colour (default: all the scene has)"),
        OptionSpec(.report, .text, placeholder: "FILE.json", for: [.render, .convert, .turntable],
                   "also write the run report (input, status, header facts, ceiling verdict, frame, camera, outputs, stage times, peak memory) as JSON",
                   variants: [.thumbnails: OptionVariant(.text, placeholder: "FILE.jsonl",
                                                         "write one JSON line per input as it finishes (to FILE.jsonl.partial, renamed to FILE.jsonl at the end); - writes the lines to standard output")]),
        OptionSpec(.memoryBudget, .byteCount, default: String(SceneAdmission.defaultMemoryBudgetBytes), for: rendering,
                   "refuse (too_large, before decoding) a job whose estimated peak memory — input, decoded scene, decoder scratch, renderer tables, images held — exceeds BYTES; thumbnails also admits inputs only while their estimates together fit (see SECURITY.md, memory model)"),
        OptionSpec(.timeout, .number(0.001...1_000_000), placeholder: "SECONDS", for: rendering,
                   "wall-clock deadline per input, enforced inside every stage (decode, render, encode): the job stops within ~0.1 s of it, removes what it wrote and fails with timeout (exit 124)"),
        OptionSpec(.progress, .optionalChoice(["auto", "line", "json", "none"], bare: "line"), default: "auto",
                   for: rendering,
                   "progress on standard error: line (redrawn, with ETA), json (one NDJSON event per step), none; auto shows the line on a terminal only; --progress alone means line"),

        // turntable, thumbnails
        OptionSpec(.frames, .integer(1...Turntable.maxFrames), default: String(Turntable.defaultFrames), for: [.turntable],
                   "number of turntable frames, evenly spaced in azimuth"),
        OptionSpec(.turntable, .integer(1...Turntable.maxFrames), placeholder: "FRAMES", for: [.thumbnails],
                   "also write FRAMES turntable frames per input to <stem>/frame_NNN.png (also the frame count of --animation, default 36)"),
        OptionSpec(.elevation, .number(-89...89), default: OptionTable.text(Turntable.defaultElevationDegrees), placeholder: "DEG",
                   for: orbiting,
                   "orbit elevation above the horizon; clamped to an SPZ file's safe-orbit hints when it has them"),
        OptionSpec(.azimuth, .number(-360...360), default: OptionTable.text(Turntable.defaultStartAzimuthDegrees), placeholder: "DEG",
                   for: orbiting,
                   "azimuth of frame 0 (the default makes frame 0 the automatic view of render)"),
        OptionSpec(.sheet, .text, placeholder: "FILE.png", for: [.turntable],
                   "also write a contact sheet: --sheet-views views around the orbit, one row per --sheet-elevations angle",
                   variants: [.thumbnails: OptionVariant(.flag, "also write a contact sheet <stem>.sheet.png")]),
        OptionSpec(.sheetViews, .integer(1...SheetPlan.maxViews), default: String(SheetPlan.defaultViews), placeholder: "N",
                   for: orbiting, "views per sheet row, evenly spaced in azimuth from --azimuth"),
        OptionSpec(.sheetElevations, .numberList(-89...89), placeholder: "DEG,DEG", for: orbiting,
                   "one sheet row per elevation (at most 8); default: one row at --elevation"),
        OptionSpec(.sheetDownscale, .integer(1...16), default: String(SheetPlan.defaultDownscale), placeholder: "K",
                   for: orbiting,
                   "each sheet view is rendered at --resolution, then shrunk by K (box filter) into its tile"),
        OptionSpec(.animation, .text, placeholder: "FILE.webp", for: [.turntable],
                   "also write the turntable as a looping animated WebP (lossless unless --animation-quality)",
                   variants: [.thumbnails: OptionVariant(.flag, "also write <stem>.webp, the turntable as a looping animated WebP")]),
        OptionSpec(.animationQuality, .number(0...100), placeholder: "Q", for: orbiting,
                   "encode the animation lossy at quality Q (0–100) instead of lossless"),
        OptionSpec(.animationEffort, .integer(0...6), default: String(AnimatedWebPWriter.Options.defaultEffort), placeholder: "0-6",
                   for: orbiting, "libwebp effort for the animation: 0 is fastest, 6 smallest"),
        OptionSpec(.frameMs, .integer(1...60_000), default: String(AnimatedWebPWriter.Options.defaultFrameDurationMs), placeholder: "MS", for: orbiting,
                   "display time of each animation frame in milliseconds"),

        // thumbnails
        OptionSpec(.jobs, short: "j", .integer(1...256), default: String(BatchOptions.defaultJobs), for: [.thumbnails],
                   "inputs decoded and rendered at once (each also uses --threads); bounded by --max-decoded-bytes"),
        OptionSpec(.skipExisting, .flag, for: [.thumbnails],
                   "skip inputs whose outputs all exist already (they get a report line with status skipped): resumes a killed batch"),
        OptionSpec(.fromStdin, .flag, for: [.thumbnails],
                   "also read input paths from standard input, one per line"),
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
        CommandSpec(name: .turntable, synopsis: "turntable SCENE --out DIR [--frames N] [--elevation DEG] [--sheet FILE.png] [--animation FILE.webp] [options]",
                    summary: "render frames orbiting the scene, a contact sheet and an animated WebP",
                    details: """
                    Decodes SCENE once and renders --frames views orbiting the framed centre about the render frame's
                    up axis (+Y) at a fixed --elevation and the automatic framing distance, frame k at azimuth
                    --azimuth + 360·k/frames; frame 0 with the defaults is exactly the view render uses without a
                    camera. An SPZ file's safe-orbit hints clamp the elevation and the minimum distance (unless the
                    scene was converted). Outputs: DIR/frame_000.png …, --sheet (tiles of --sheet-views views per row,
                    one row per --sheet-elevations angle, each rendered at --resolution and shrunk by
                    --sheet-downscale) and --animation (a looping animated WebP). At least one output is needed. A
                    failed run removes what it wrote.
                    """,
                    positionals: ["SCENE"], positionalCount: 1...1),
        CommandSpec(name: .thumbnails, synopsis: "thumbnails IN... --out-dir DIR [--jobs N] [--turntable FRAMES] [--sheet] [--animation] [--report FILE.jsonl] [options]",
                    summary: "batch: a thumbnail (and optional turntable, sheet, animation) for every input",
                    details: """
                    Each IN is a scene file, a SOG folder, or a folder scanned recursively (sorted, hidden names skipped)
                    for .spz .ply .sog .splat files and SOG folders; --from-stdin adds paths read from standard input.
                    Every input gets DIR/<stem>.png (the automatic view), and with the options DIR/<stem>/frame_NNN.png,
                    DIR/<stem>.sheet.png and DIR/<stem>.webp; stems that would collide get -2, -3, …. One bad file never
                    stops the rest: each input gets one JSON line in --report (as inputs finish, each with its input
                    index), and a failed input leaves no outputs. Headers are read first: a file over
                    --max-decoded-bytes fails with too_large without decoding, and inputs run --jobs at a time only while
                    their declared decoded sizes together fit --max-decoded-bytes. Exit status 0 when every input
                    succeeded, 2 when some failed.
                    """,
                    positionals: ["IN..."], positionalCount: 0...Int.max),
        CommandSpec(name: .info, synopsis: "info FILE... [--json] [--bounds] [options]",
                    summary: "describe a scene from its header",
                    details: """
                    Reads only the header (unless --bounds is given) and prints the format, version, splat count,
                    SH degree, model, frame decision with its reason, the declared decoded size and whether it fits
                    the 768 MiB service ceiling and --max-decoded-bytes, warnings and format details. A file over
                    the ceiling is reported (exit 0), not refused. With several files, each is described in turn
                    (--json: one JSON line per file; a file that cannot be read gives a line with its "error");
                    the exit status is then 0 when every file was read and 2 when some were not.
                    """,
                    positionals: ["FILE..."], positionalCount: 1...Int.max),
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

    /// A default number as a user would type it: `50`, not `50.0`.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// The row for a long option name (without dashes).
    public static func option(named name: String) -> OptionSpec? {
        OptionName(rawValue: name).flatMap { option($0) }
    }

    /// The row for a typed name.
    public static func option(_ name: OptionName) -> OptionSpec? {
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

    /// The options `command` accepts, in table order, as that command sees them.
    public static func options(for command: CommandName) -> [OptionSpec] {
        options.filter { $0.commands.contains(command) }.map { $0.resolved(for: command) }
    }
}
