import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// Everything one input needs, from bytes to files: read the header and admit it (refusing
/// without decoding), decode once, decide the frame once and convert, frame the scene, then
/// render every requested view with one `Renderer` (its per-scene data is computed once) and
/// write the outputs. `render`, `turntable`, each input of `thumbnails`, each server request and
/// each fleet job is one of these.
///
/// Outputs, each written atomically (temporary file + rename):
/// - `image`: the single view (camera from `view.camera`), a PNG file or bytes for the caller;
/// - `framesDirectory`: the orbit's frames as `frame_000.png`, `frame_001.png`, …
///   (`frameFileName(_:of:)`), written as they are rendered;
/// - `sheet`: a contact sheet PNG (`SheetPlan`);
/// - `animation`: the orbit's frames as a looping animated WebP.
///
/// Views that coincide (the single view and frame 0 with the default camera; sheet views whose
/// azimuth falls on a frame) are rendered once. A failed job removes the files it wrote, so an
/// input has either all of its outputs or none; the report says why.
public struct SceneJob: Sendable {
    /// Report label: `render`, `turntable`, `thumbnails`, `serve`, `worker`.
    public var command: String
    public var input: SceneInput
    /// Position in a batch, copied to the report.
    public var index: Int?
    public var load: LoadOptions
    public var view: ViewRequest
    public var orbit: OrbitOptions
    public var image: ImageTarget?
    public var framesDirectory: String?
    public var sheet: SheetOutput?
    public var animation: AnimationOutput?
    /// Format and quality of the single view and the sheet.
    public var encoding = ImageEncoding()
    /// Wall-clock budget in seconds for the whole job, enforced inside every stage (kind `timeout`).
    public var timeoutSeconds: Double?
    /// A wider scope the job also stops with: a batch's signal token, a server's drain or a
    /// client that went away.
    public var cancellation: CancellationToken?
    /// The job is refused (`too_large`) when its estimated peak memory (`MemoryEstimate`) is
    /// larger; nil for no budget.
    public var memoryBudget: Int? = SceneAdmission.defaultMemoryBudgetBytes
    /// A header the caller already read and admitted (a batch reads them to schedule), with the
    /// time it took; the job then does not read it again.
    public var header: SceneHeader?
    public var headerMilliseconds: Double = 0
    /// Fail with kind `blank` when an output's coverage (`CoverageGuard`) is below this fraction
    /// of the frame (`--min-coverage`); nil: low coverage is only a warning.
    public var minCoverage: Double?
    /// Remove this job's outputs when it fails (default true).
    public var removeOutputsOnFailure = true
    /// A scene already decoded and converted for this job (by `SceneLoader.load` with `load`):
    /// the job renders it without reading its input again, so several jobs over one input — the
    /// outputs of a fleet job at different sizes — share one decode. Jobs sharing it run one
    /// after another, not at once.
    public var preloaded: LoadedScene?
    /// Keep the encoded outputs in `JobOutcome.heldOutputs` instead of writing files; their paths
    /// then only name them (a still's extension still picks its format). A fleet job stores them
    /// at their URLs itself. Frames folders are not held: use `sheet` and `animation`.
    public var holdsOutputs = false

    public init(command: String = "render", input: SceneInput, load: LoadOptions = LoadOptions(),
                view: ViewRequest = ViewRequest(), orbit: OrbitOptions = OrbitOptions(), image: ImageTarget? = nil,
                framesDirectory: String? = nil, sheet: SheetOutput? = nil, animation: AnimationOutput? = nil,
                timeoutSeconds: Double? = nil, cancellation: CancellationToken? = nil) {
        self.command = command
        self.input = input
        self.load = load
        self.view = view
        self.orbit = orbit
        self.image = image
        self.framesDirectory = framesDirectory
        self.sheet = sheet
        self.animation = animation
        self.timeoutSeconds = timeoutSeconds
        self.cancellation = cancellation
    }

    /// The single files the job writes (the image when it goes to a file, the sheet, the animation).
    public var outputFiles: [String] {
        var paths: [String] = []
        if case .file(let path)? = image { paths.append(path) }
        if let sheet { paths.append(sheet.path) }
        if let animation { paths.append(animation.path) }
        return paths
    }

    /// Whether any output needs the orbit.
    public var needsOrbit: Bool { framesDirectory != nil || sheet != nil || animation != nil }

    /// A job without an orbit renders one view (twice at most, with the blank-frame guard's
    /// retry): it keeps no per-splat covariances, which are recomputed in its frame. Orbits keep
    /// them for their many frames. The memory estimate reads the same rule.
    public var preparation: ScenePreparation { needsOrbit ? .prepared : .perFrame }

    /// `frame_000.png` …: three digits, more when the count needs them.
    public static func frameFileName(_ k: Int, of count: Int) -> String {
        let digits = max(3, String(max(0, count - 1)).count)
        let number = String(k)
        return "frame_" + String(repeating: "0", count: max(0, digits - number.count)) + number + ".png"
    }

    /// Runs the job. Never throws: failures are in `report.error` (with `report.failedStage`).
    public func run(progress: ProgressHandler? = nil) -> JobOutcome {
        JobExecution(job: self, progress: progress).execute()
    }
}
