import SplatCore
import SplatFormats
import SplatImage
import SplatRender

extension OptionTable {
    /// Rows of the commands that orbit the scene, and of the batch.
    static let orbitRows: [OptionSpec] = [
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
                   "encode the animation lossy at quality Q (0–100) instead of lossless — the way to small previews (36 frames of 512²: 2.3 MB lossless, a few hundred KB at 75)"),
        OptionSpec(.animationEffort, .integer(0...6), default: String(AnimatedWebPWriter.Options.defaultEffort), placeholder: "0-6",
                   for: orbiting, "libwebp effort for the animation: 0 is fastest, 6 smallest and far slower (36 frames of 256²: 0.64 s at 0, 40.6 s at 6)"),
        OptionSpec(.frameMs, .integer(1...60_000), default: String(AnimatedWebPWriter.Options.defaultFrameDurationMs), placeholder: "MS", for: orbiting,
                   "display time of each animation frame in milliseconds"),
        // thumbnails
        OptionSpec(.jobs, short: "j", .integer(1...256), default: String(BatchOptions.defaultJobs), for: [.thumbnails],
                   "inputs decoded and rendered at once (each also uses --threads); bounded by --max-decoded-bytes"),
        OptionSpec(.imageFormat, .choice(["png", "webp", "jpeg", "jpg"]), default: "png", for: [.thumbnails],
                   "format of each input's thumbnail and contact sheet: <stem>.png, .webp or .jpg (frames stay PNG)"),
        OptionSpec(.skipExisting, .flag, for: [.thumbnails],
                   "skip inputs whose outputs all exist already (they get a report line with status skipped): resumes a killed batch"),
        OptionSpec(.fromStdin, .flag, for: [.thumbnails],
                   "also read input paths from standard input, one per line"),
    ]
}
