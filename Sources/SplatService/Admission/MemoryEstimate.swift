import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// What one job will hold at its peak, estimated from its header and its outputs before anything
/// is decoded: the input bytes held in memory (`SceneAdmission.inputBytes(of:header:)`), the
/// decoded scene in the form jobs render from (`renderFormBytes`), the decoder's scratch (`SceneHeader.decodeScratchBytes`), the renderer's
/// per-scene and per-frame tables
/// (`Renderer.estimatedBytes`), and the images the outputs hold (an animation keeps every frame
/// until it is encoded; a sheet keeps its tiles) with their encoders' buffers. Stages overlap
/// little, but the estimate adds them: it is an upper bound, used to admit jobs under a memory
/// budget, and the report prints it beside the measured peak.
///
/// Not counted: the process itself (code, runtime, thread stacks: about 30 MiB, the same for
/// every job), which a budget for many jobs pays once.
///
/// Only `of(_:header:inputBytes:)` makes these, so the memberwise initialiser stays internal.
public struct MemoryEstimate: Sendable, Equatable {
    public var inputBytes: Int
    public var sceneBytes: Int
    public var decodeScratchBytes: Int
    public var renderBytes: Int
    public var outputBytes: Int

    /// The parts in report order, each with its `json` key and its word in `summary`: the sum,
    /// the summary and the JSON all read this one list, so a new part cannot be left out of one.
    var parts: [(key: String, label: String, bytes: Int)] {
        [
            ("input_bytes", "input", inputBytes),
            ("scene_bytes", "scene", sceneBytes),
            ("decode_scratch_bytes", "decode", decodeScratchBytes),
            ("render_bytes", "render", renderBytes),
            ("output_bytes", "outputs", outputBytes),
        ]
    }

    /// The sum, saturating.
    public var totalBytes: Int {
        parts.reduce(0) { CheckedSize.add($0, $1.bytes) ?? Int.max }
    }

    /// Bytes an encoder may hold per input pixel byte: filtered rows plus the compressed bound
    /// (PNG), or libwebp's working copies (WebP); measured below 2 for both.
    static let encoderBytesPerPixelByte = 3

    /// The estimate for `job` whose input has `header` and holds `inputBytes` in memory.
    public static func of(_ job: SceneJob, header: SceneHeader, inputBytes: Int) -> MemoryEstimate {
        let limits = job.load.limits
        // glTF instances multiply the stored splats when flattened.
        let splats = max(header.count, Int(header.details["instanced_count"] ?? "") ?? 0)
        let size = limits.sizeVerdict(count: splats, fileDegree: header.shDegree)
        let scene = renderFormBytes(header, size: size) ?? Int.max
        let settings = job.view.settings
        let rendersAnything = job.image != nil || job.needsOrbit
        let render = rendersAnything
            ? Renderer.estimatedBytes(splats: splats, width: settings.width, height: settings.height,
                                      maxTilePairs: settings.maxTilePairs, preparation: job.preparation)
            : 0
        let frame = CheckedSize.mul(CheckedSize.mul(settings.width, settings.height) ?? Int.max, 4) ?? Int.max
        var held = 0
        if rendersAnything { held = add(held, mul(frame, 1 + encoderBytesPerPixelByte)) }
        if job.animation != nil { held = add(held, mul(frame, job.orbit.frames + 2 * encoderBytesPerPixelByte)) }
        if let sheet = job.sheet {
            let rows = sheet.plan.elevationsDegrees?.count ?? 1
            let tile = frame / max(1, sheet.plan.downscale * sheet.plan.downscale)
            // The tiles, the composed sheet, and its encoder.
            held = add(held, mul(mul(tile, sheet.plan.views * rows), 2 + encoderBytesPerPixelByte))
        }
        return MemoryEstimate(inputBytes: inputBytes, sceneBytes: scene, decodeScratchBytes: header.decodeScratchBytes,
                              renderBytes: render, outputBytes: held)
    }

    /// The scene a job renders from: jobs decode SPZ with `SHStorage.quantized`, so its SH bands
    /// are the file's bytes (3 per coefficient of the file's degree, kept bands or not) beside
    /// the degree-0 columns; every other format holds Float32 SH of the kept degree.
    static func renderFormBytes(_ header: SceneHeader, size: SceneSizeVerdict) -> Int? {
        guard header.format == .spz, size.keptDegree > 0 else { return size.declaredDecodedBytes }
        let perSplat = SplatScene.bytesPerSplat(degree: 0) + 3 * SplatScene.shCoefficientCount(degree: size.fileDegree)
        return CheckedSize.mul(size.count, perSplat).flatMap { CheckedSize.add($0, QuantizedSH.tailPadding) }
    }

    private static func add(_ a: Int, _ b: Int) -> Int { CheckedSize.add(a, b) ?? Int.max }
    private static func mul(_ a: Int, _ b: Int) -> Int { CheckedSize.mul(a, b) ?? Int.max }

    /// "1.62 GiB (input 84 MiB, scene 765 MiB, decode 150 MiB, render 560 MiB, outputs 3 MiB)".
    public var summary: String {
        let m = AdmissionVerdict.mebibytes
        return "\(m(totalBytes)) (" + parts.map { "\($0.label) \(m($0.bytes))" }.joined(separator: ", ") + ")"
    }

    /// The report's `memory_estimate` object.
    public var json: JSONValue {
        .object([("total_bytes", .int(totalBytes))] + parts.map { ($0.key, .int($0.bytes)) })
    }
}
