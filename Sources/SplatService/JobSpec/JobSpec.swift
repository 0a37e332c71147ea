import SplatCore
import SplatImage

/// One job of the fleet's job schema (`splatrender worker`, `thumbnails --job-file`): an input
/// and several outputs, each at a location, with options written as the command line's long
/// names and values:
///
/// ```json
/// {"id": "scene-123", "input": "https://storage.example/scene.spz?sig=…",
///  "options": {"max-decoded-bytes": 805306368, "source-frame": "RUB", "timeout": 30},
///  "outputs": [{"kind": "image", "to": "file:///data/out/thumb.png", "resolution": "512x512"},
///              {"kind": "sheet", "to": "https://storage.example/put/sheet.png?sig=…", "sheet-views": 8},
///              {"kind": "animation", "to": "file:///data/out/spin.webp", "frames": 36}]}
/// ```
///
/// Made only by `JobSpecParser`, which validates every option through `OptionTable` and
/// `OptionValueParser` and confines every location, so a `JobSpec` can always be run.
public struct JobSpec: Sendable {
    /// What an output is; each is made as the command line makes it.
    public enum Kind: String, Sendable, CaseIterable {
        /// The single view, as `render` makes it.
        case image
        /// A contact sheet, as `turntable --sheet` makes it.
        case sheet
        /// A looping animated WebP of the orbit, as `turntable --animation` makes it.
        case animation

        /// The command whose options (and defaults) the output takes.
        public var command: CommandName { self == .image ? .render : .turntable }
    }

    /// One entry of `outputs`.
    public struct Output: Sendable {
        public var kind: Kind
        /// Where the bytes go.
        public var location: JobLocation
        /// `to` as given (reports show `location`, which hides URL signatures).
        public var target: String
        /// The job's options overridden by the output's own, with the command's defaults: what
        /// `viewRequest`, `orbitOptions`, `sheetPlan`, `animationOptions` are read from.
        public var options: ParsedCommand
        /// The still's format (from `out-format`, else the extension of `to`); nil for an animation.
        public var format: ImageFormat?

        /// `Content-Type` of an upload.
        public var contentType: String { format?.mimeType ?? "image/webp" }
    }

    /// The caller's name for the job, copied to its result and report.
    public var id: String
    public var input: JobLocation
    /// The job-wide options (decode limits, frame, `threads`, `timeout`) with `render`'s defaults.
    public var options: ParsedCommand
    public var outputs: [Output]

    /// How the input is read and brought into the render frame, once for every output.
    public var load: LoadOptions { options.loadOptions }
    /// The job's deadline in seconds (`timeout`): fetch, decode, render and store together.
    public var timeoutSeconds: Double? { options.timeoutSeconds }
}
