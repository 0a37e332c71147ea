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
        orbitAngle(.elevation, -89...89,
                   orbit: (Turntable.defaultElevationDegrees,
                           "orbit elevation above the horizon; clamped to an SPZ file's safe-orbit hints when it has them"),
                   render: (AutoFramer.defaultElevationDegrees,
                            "elevation of the automatic view above the horizon (the framing is fitted for it); --camera-pos/--camera-target override")),
        orbitAngle(.azimuth, -360...360,
                   orbit: (Turntable.defaultStartAzimuthDegrees,
                           "azimuth of frame 0 (the default makes frame 0 the automatic view of render)"),
                   render: (AutoFramer.defaultAzimuthDegrees,
                            "azimuth of the automatic view around the framed centre (the same image as frame 0 of a one-frame turntable at these angles)")),
        OptionSpec(.distance, .number(0.01...100), default: OptionTable.text(CameraRequest.defaultDistanceFactor), placeholder: "FACTOR",
                   for: rendering,
                   "camera distance as a multiple of the automatic framing's (2 = twice as far); a camera position given as an option wins"),
        OptionSpec(.zoom, .number(0.01...100), default: OptionTable.text(CameraRequest.defaultZoom), placeholder: "FACTOR",
                   for: rendering,
                   "magnify by FACTOR without moving the camera: the field of view narrows (tan(fov/2) ÷ FACTOR), cropping the framed view"),
        OptionSpec(.view, .text, placeholder: "training:K|training:auto", for: [.render],
                   "render exactly what training camera K of --cameras saw (its vertical field of view, scaled to --resolution), or with training:auto the camera nearest the cameras' mean direction from the scene centre; --camera-pos and --camera-target are then refused"),
        OptionSpec(.sheet, .text, placeholder: "FILE.png", for: [.turntable],
                   "also write a contact sheet: --sheet-views views around the orbit in a grid --sheet-columns wide, each --sheet-elevations angle starting a new row",
                   variants: [.thumbnails: OptionVariant(.flag, "also write a contact sheet <stem>.sheet.png")]),
        OptionSpec(.sheetViews, .integer(1...SheetPlan.maxViews), default: String(SheetPlan.defaultViews), placeholder: "N",
                   for: orbiting, "views per elevation, evenly spaced in azimuth from --azimuth"),
        OptionSpec(.sheetElevations, .numberList(-89...89), placeholder: "DEG,DEG", for: orbiting,
                   "sheet elevations (at most 8), each starting a new grid row; default: --elevation"),
        OptionSpec(.sheetColumns, .integer(1...SheetPlan.maxViews), default: String(SheetPlan.defaultColumns), placeholder: "N",
                   for: orbiting,
                   "tiles per sheet row (at most --sheet-views); each elevation starts a new row and wraps after N views: 8 views are 4×2"),
        OptionSpec(.sheetGutter, .integer(0...SheetPlan.maxGutter), default: String(SheetPlan.defaultGutter), placeholder: "PX",
                   for: orbiting, "pixels between sheet tiles, in the --background colour (transparent without one)"),
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

    /// An angle in degrees that the orbiting commands read for their orbit and `render` for its
    /// automatic view: one range and placeholder for both, a default and help for each.
    static func orbitAngle(_ name: OptionName, _ range: ClosedRange<Double>, orbit: (default: Double, help: String),
                           render: (default: Double, help: String)) -> OptionSpec {
        OptionSpec(name, .number(range), default: text(orbit.default), placeholder: "DEG", for: orbiting, orbit.help,
                   variants: [.render: OptionVariant(.number(range), default: text(render.default), placeholder: "DEG",
                                                     render.help)])
    }
}
