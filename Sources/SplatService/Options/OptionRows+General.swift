import SplatCore
import SplatFormats
import SplatImage
import SplatRender

extension OptionTable {
    /// Options every command takes, and those of the commands that decode a scene.
    static let generalRows: [OptionSpec] = [
        // Everywhere.
        OptionSpec(.help, short: "h", .flag, for: all, "show help for the command and exit"),
        OptionSpec(.version, .flag, for: all, "print the version and exit"),
        // Shared by every command that decodes a scene.
        OptionSpec(.format, .format, for: decoding,
                   "read the input as FORMAT (spz, ply, compressed_ply, sog, splat, gltf, ksplat) instead of detecting it; needed for .splat and .ksplat on standard input"),
        OptionSpec(.maxDecodedBytes, .byteCount, default: String(DecodeLimits.serviceCeilingBytes), for: decoding.union([.serve]),
                   "refuse to decode a scene whose decoded floats (or any inflated intermediate) would exceed BYTES; suffixes K, M, G (binary) accepted",
                   variants: [.thumbnails: OptionVariant(.byteCount, default: String(DecodeLimits.serviceCeilingBytes),
                                                         "per-file ceiling on the decoded size, and the budget for all running inputs together: an input starts only when the declared sizes (from the headers) of the running ones plus its own fit; a file alone over it fails with too_large without decoding")]),
        OptionSpec(.maxShDegree, .integer(0...4), for: decoding.union([.serve]),
                   "drop spherical-harmonic bands above degree N while decoding (also lowers the declared decoded size)"),
        OptionSpec(.sourceFrame, .frame, for: decoding,
                   "the frame the stored values are in (RUB, RDF, … or ply, opengl, gltf, unity, blender); overrides the file's declaration and the format's convention"),
        OptionSpec(.up, .choice(["auto", "convention", "+x", "-x", "+y", "-y", "+z", "-z"]), default: "auto",
                   for: [.render, .turntable, .thumbnails, .convert, .info],
                   "which stored axis is up when the file declares no frame: auto (training cameras, else a confident estimate from the splats — ground, surface normals, extents — else the format's convention), convention, or an axis (+y, -z, …; overrides a declared frame too); only proper rotations, never a mirror"),
        OptionSpec(.cameras, .text, placeholder: "cameras.json", for: [.render, .turntable, .convert, .info],
                   "the training cameras (INRIA 3DGS cameras.json, stored frame): their up outranks the estimate, and render shows one with --view=training:K"),
        OptionSpec(.gltfScale, .choice(["auto", "linear", "log"]), default: "auto", for: decoding,
                   "how a glTF's SCALE accessor is read: auto (the extension's rule, log for early drafts that say so), linear or log"),
        OptionSpec(.flip, .flag, for: decoding,
                   "add a half turn about X after the frame conversion (fixes scenes that come out upside down)"),
        OptionSpec(.strict, .flag, for: decoding.union([.serve]),
                   "fail on the first splat with a NaN or infinite value instead of dropping it"),
        OptionSpec(.maxInputBytes, .byteCount, for: decoding.union([.serve]),
                   "read at most BYTES of a file or of standard input (default: 4 × the larger of --max-decoded-bytes and the 768 MiB ceiling, 3 GiB; an ASCII PLY is ~3.3× its decoded size); more fails with too_large before anything is decoded"),
        OptionSpec(.threads, .integer(1...1024), for: decoding,
                   "worker threads for conversion and rendering (default: all cores)"),
        OptionSpec(.verbose, short: "v", .flag, for: decoding,
                   "print the frame decision, the camera and stage timings"),
        OptionSpec(.quiet, short: "q", .flag, for: decoding,
                   "print nothing but errors (nor progress, unless that is asked for explicitly)",
                   variants: [.serve: OptionVariant(.flag, "write no access log (one JSON line per request on standard error otherwise)")]),
    ]
}
