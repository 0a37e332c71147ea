import SplatCore
import SplatFormats
import SplatImage
import SplatRender

extension OptionTable {
    /// Rows of `info` and `convert`.
    static let decodingRows: [OptionSpec] = [
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
    ]
}
