import SplatCore
import SplatFormats
import SplatImage
import SplatRender

extension OptionTable {
    /// Rows of the commands that render images.
    static let renderingRows: [OptionSpec] = [
        // render, turntable, thumbnails
        OptionSpec(.out, short: "o", .text, placeholder: "FILE.png", for: [.render],
                   "where to write the image; the extension picks the format (.png, .webp, .jpg/.jpeg; another is refused); - writes it to standard output (PNG unless --out-format)",
                   variants: [.turntable: OptionVariant(.text, placeholder: "DIR",
                                                        "folder for the frames frame_000.png, frame_001.png, … (created if missing)")]),
        OptionSpec(.outDir, .text, placeholder: "DIR", for: [.thumbnails],
                   "folder for the outputs: <stem>.png, <stem>/frame_NNN.png, <stem>.sheet.png, <stem>.webp (created if missing)"),
        OptionSpec(.resolution, .resolution, default: "\(RenderSettings.defaultWidth)x\(RenderSettings.defaultHeight)", for: rendering, "image width and height in pixels"),
        OptionSpec(.cameraPos, .vector3, for: [.render],
                   "camera position in the render frame (RUB, after the frame conversion); default: the automatic three-quarter view"),
        OptionSpec(.cameraTarget, .vector3, for: [.render],
                   "point the camera looks at; default: the centre found by the automatic framing"),
        OptionSpec(.cameraUp, .direction, for: rendering,
                   "camera up direction (also the orbit's axis); default: the automatic framing's up (+Y of the render frame)"),
        OptionSpec(.cameraFov, .number(1...179), default: OptionTable.text(Camera.defaultFovYDegrees), placeholder: "DEG", for: rendering,
                   "vertical field of view in degrees"),
        OptionSpec(.padding, .number(0...AutoFramer.maximumPadding), default: OptionTable.text(AutoFramer.defaultPadding),
                   placeholder: "FRACTION", for: rendering,
                   "empty band the automatic framing keeps along each edge, as a fraction of the width (left, right) and height (top, bottom), in every orbit view"),
        OptionSpec(.minCoverage, .number(0...1), placeholder: "FRACTION", for: rendering,
                   "fail with blank (exit 65; thumbnails: the input's status blank) when an output's subject covers less than FRACTION of the frame; below 0.005 a low_coverage warning is given anyway"),
        OptionSpec(.background, .colour, for: rendering,
                   "background colour, each channel 0–1; omitted: transparent RGBA (PNG, WebP) — JPEG has no alpha and is composited onto white"),
        OptionSpec(.quality, .number(0...100), placeholder: "Q", for: rendering,
                   "lossy quality 0–100 for still images: WebP becomes lossy (lossless without it), JPEG defaults to 90; PNG takes none"),
        OptionSpec(.outFormat, .choice(["png", "webp", "jpeg", "jpg"]), for: [.render],
                   "image format, instead of the --out extension (needed for --out -)"),
        OptionSpec(.antialiased, .choice(["auto", "on", "off"]), default: "auto", for: rendering,
                   "mip-splatting opacity compensation: auto follows the file's flag"),
        OptionSpec(.shDegree, .integer(0...4), for: rendering,
                   "highest spherical-harmonic degree used for colour (default: all the scene has)"),
        OptionSpec(.report, .text, placeholder: "FILE.json", for: [.render, .convert, .turntable],
                   "also write the run report (input, status, header facts, ceiling verdict, frame, camera, outputs, stage times, peak memory) as JSON",
                   variants: [.thumbnails: OptionVariant(.text, placeholder: "FILE.jsonl",
                                                         "write one JSON line per input as it finishes (to FILE.jsonl.partial, renamed to FILE.jsonl at the end); - writes the lines to standard output")]),
        OptionSpec(.memoryBudget, .byteCount, default: String(SceneAdmission.defaultMemoryBudgetBytes), for: rendering,
                   "refuse (too_large, before decoding) a job whose estimated peak memory — input, decoded scene, decoder scratch, renderer tables, images held — exceeds BYTES; thumbnails also admits inputs only while their estimates together fit (see SECURITY.md, memory model)",
                   variants: [.serve: OptionVariant(.byteCount, default: String(ServeDefaults.memoryBudgetBytes),
                                                    "bytes the estimated peaks of the running jobs may add up to: a request waits in the queue until its estimate fits; one whose estimate alone is larger is refused with 413 too_large"),
                              .worker: OptionVariant(.byteCount, default: String(WorkerDefaults.memoryBudgetBytes),
                                                     "bytes the estimated peaks of the running jobs may add up to: a job that does not fit waits for memory; one whose estimate alone is larger fails with too_large")]),
        OptionSpec(.timeout, .number(0.001...1_000_000), placeholder: "SECONDS", for: rendering,
                   "wall-clock deadline per input, enforced inside every stage (decode, render, encode): the job stops within ~0.1 s of it, removes what it wrote and fails with timeout (exit 124)"),
        OptionSpec(.progress, .optionalChoice(["auto", "line", "json", "none"], bare: "line"), default: "auto",
                   for: rendering,
                   "progress on standard error: line (redrawn, with ETA), json (one NDJSON event per step), none; auto shows the line on a terminal only; --progress alone means line"),
    ]
}
