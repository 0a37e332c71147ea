import Foundation
import SplatCore
import SplatFormats
import SplatImage

/// What a batch makes of each input, and how many inputs may run at once.
public struct BatchOptions: Sendable {
    /// Inputs in flight unless told otherwise: one, so a batch never needs more memory than
    /// its largest input unless asked.
    public static let defaultJobs = 1

    /// Outputs go here: `<stem>.png`, `<stem>/frame_NNN.png`, `<stem>.sheet.png`, `<stem>.webp`.
    public var outputDirectory: String
    /// Most inputs in flight at once.
    public var jobs: Int
    /// Ceiling on the sum of the estimated peaks (`MemoryEstimate`, from each header and the
    /// outputs asked for) of the inputs in flight; an input whose estimate alone is larger fails
    /// with `too_large` without being decoded. Default `SceneAdmission.defaultMemoryBudgetBytes`.
    public var memoryBudget: Int
    /// Skip inputs whose outputs all exist already (a killed batch, run again, resumes).
    public var skipExisting = false
    /// Format and quality of each input's thumbnail and sheet (`<stem>.png` / `.webp` / `.jpg`).
    public var encoding = ImageEncoding()
    /// Paths inside `outputDirectory` no output may take (the report and its `.partial`).
    public var reservedPaths: [String] = []
    public var load: LoadOptions
    public var view: ViewRequest
    public var orbit: OrbitOptions
    /// Write `<stem>.png`, the automatic view (default true).
    public var writeImage: Bool
    /// Write the orbit's frames to `<stem>/` (the frame count is `orbit.frames`).
    public var writeFrames: Bool
    /// Write `<stem>.sheet.png`.
    public var sheet: SheetPlan?
    /// Write `<stem>.webp`, an animation of the orbit's frames.
    public var animation: AnimatedWebPWriter.Options?
    public var timeoutSeconds: Double?
    /// Each input's `SceneJob.minCoverage` (`--min-coverage`): below it the input's status is `blank`.
    public var minCoverage: Double?

    public init(outputDirectory: String, jobs: Int = BatchOptions.defaultJobs, memoryBudget: Int? = nil, load: LoadOptions = LoadOptions(),
                view: ViewRequest = ViewRequest(), orbit: OrbitOptions = OrbitOptions(), writeImage: Bool = true,
                writeFrames: Bool = false, sheet: SheetPlan? = nil, animation: AnimatedWebPWriter.Options? = nil,
                timeoutSeconds: Double? = nil) {
        self.outputDirectory = outputDirectory
        self.jobs = jobs
        self.memoryBudget = memoryBudget ?? SceneAdmission.defaultMemoryBudgetBytes
        self.load = load
        self.view = view
        self.orbit = orbit
        self.writeImage = writeImage
        self.writeFrames = writeFrames
        self.sheet = sheet
        self.animation = animation
        self.timeoutSeconds = timeoutSeconds
    }

    /// The job for one input (outputs named after its output base, e.g. `sub/scene`).
    public func job(for input: BatchInput, index: Int) -> SceneJob {
        let base = (outputDirectory as NSString).appendingPathComponent(input.stem)
        let ext = (encoding.format ?? .png).fileExtension
        var job = SceneJob(command: "thumbnails", input: .path(input.path), load: load, view: view, orbit: orbit,
                           image: writeImage ? .file(base + "." + ext) : nil,
                           framesDirectory: writeFrames ? base : nil,
                           sheet: sheet.map { SheetOutput(path: base + ".sheet." + ext, plan: $0) },
                           animation: animation.map { AnimationOutput(path: base + ".webp", options: $0) },
                           timeoutSeconds: timeoutSeconds)
        job.index = index
        job.memoryBudget = memoryBudget
        job.encoding = encoding
        job.minCoverage = minCoverage
        return job
    }

    /// The files `job` writes when it succeeds (its frames folder counts as its first frame).
    public static func outputPaths(of job: SceneJob) -> [String] {
        var paths = job.outputFiles
        if let directory = job.framesDirectory {
            paths.append((directory as NSString).appendingPathComponent(SceneJob.frameFileName(job.orbit.frames - 1, of: job.orbit.frames)))
        }
        return paths
    }
}
