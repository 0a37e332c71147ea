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
        OptionSpec(.stats, .flag, for: [.info],
                   "also decode the scene and report its statistics: per-attribute min/max/mean/std and non-finite counts, stored and effective SH degree, opacity and scale percentiles, robust box, overdraw, file and decoded size"),
        // convert
        OptionSpec(.toFrame, .frame, for: [.convert],
                   "convert the values to FRAME before writing; default: the output format's convention (PLY: RDF, so PLY viewers show it upright; SPZ: RUB, recorded in the file), converted from the source's frame decision (--source-frame, the file's declaration, --up / training cameras / the up estimate, the format's convention)"),
        OptionSpec(.gltfCompression, .choice(["none", "spz"]), default: "none", for: [.convert],
                   "glTF output (.glb, .gltf): plain float accessors, or the SPZ-compressed form (KHR_gaussian_splatting_compression_spz_2, written by our SPZ encoder)"),
        OptionSpec(.keepFrame, .flag, for: [.convert],
                   "write the stored values unchanged, in the source's own frame (for value-by-value comparisons with other decoders)"),
        OptionSpec(.spzVersion, .integer(3...4), for: [.convert],
                   "SPZ container version to write: 3 (gzip) or 4 (zstd, default of the encoder)"),
    ]
}
