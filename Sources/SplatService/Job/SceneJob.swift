import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// Everything one input needs, from bytes to files: read the header and check it against the
/// ceiling (refusing without decoding), decode once, convert to the render frame, frame the
/// scene, then render every requested view with one `Renderer` (its per-scene data is computed
/// once) and write the outputs. `render`, `turntable` and each input of `thumbnails` are one job.
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
    /// Report label: `render`, `turntable`, `thumbnails`.
    public var command: String
    public var input: SceneInput
    /// Position in a batch, copied to the report.
    public var index: Int?
    public var load: LoadOptions
    public var view: ViewOptions
    public var orbit: OrbitOptions
    public var image: ImageTarget?
    public var framesDirectory: String?
    public var sheet: SheetOutput?
    public var animation: AnimationOutput?
    /// Wall-clock budget in seconds, checked between stages and frames (kind `timeout`).
    public var timeoutSeconds: Double?
    /// A header the caller already read (a batch reads them to schedule), with the time it took;
    /// the job then does not read it again.
    public var header: SceneHeader?
    public var headerMilliseconds: Double = 0
    /// Remove this job's outputs when it fails (default true).
    public var removeOutputsOnFailure = true

    public init(command: String = "render", input: SceneInput, load: LoadOptions = LoadOptions(),
                view: ViewOptions = ViewOptions(), orbit: OrbitOptions = OrbitOptions(), image: ImageTarget? = nil,
                framesDirectory: String? = nil, sheet: SheetOutput? = nil, animation: AnimationOutput? = nil,
                timeoutSeconds: Double? = nil) {
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
    }

    /// Whether any output needs the orbit.
    public var needsOrbit: Bool { framesDirectory != nil || sheet != nil || animation != nil }

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

/// What a job produced: its report, and the single view when the caller asked for it.
public struct JobOutcome: Sendable {
    public var report: RunReport
    /// The single view's PNG when `image` was `.caller`.
    public var imagePNG: [UInt8]?
    /// The single view's pixels (set whenever a single view was rendered).
    public var image: ImageBuffer?
}

/// A failure with the stage it happened in.
struct JobFailure: Error {
    var error: SplatError
    var stage: RunReport.FailureStage
}

/// One run of a `SceneJob`: the mutable state (report, files written) of `execute()`.
final class JobExecution {
    let job: SceneJob
    let progress: ProgressHandler?
    let deadline: Deadline
    var report: RunReport
    var written: [String] = []
    var createdDirectory: String?
    var imagePNG: [UInt8]?
    var image: ImageBuffer?

    /// A view to render and what its image is for.
    struct PlannedView {
        enum Role {
            case image
            case frame(Int)
            case tile(Int)
        }
        var camera: Camera
        var roles: [Role]
    }

    init(job: SceneJob, progress: ProgressHandler?) {
        self.job = job
        self.progress = progress
        let start = ContinuousClock.now - .nanoseconds(Int64(max(0, job.headerMilliseconds) * 1e6))
        deadline = Deadline(budget: Deadline(seconds: job.timeoutSeconds).budget, start: start)
        report = RunReport(command: job.command, input: job.input.name, index: job.index, started: start)
    }

    func execute() -> JobOutcome {
        do throws(JobFailure) {
            try perform()
        } catch {
            report.failed(error.error, at: error.stage)
            if job.removeOutputsOnFailure { removeWritten() }
        }
        report.finish()
        return JobOutcome(report: report, imagePNG: report.succeeded ? imagePNG : nil, image: report.succeeded ? image : nil)
    }

    private func step<T>(_ stage: RunReport.FailureStage, _ body: () throws(SplatError) -> T) throws(JobFailure) -> T {
        do {
            return try body()
        } catch {
            // A deadline is about the input as a whole: name it.
            throw JobFailure(error: error.kind == .timeout ? error.inFile(job.input.name) : error, stage: stage)
        }
    }

    private func emit(_ stage: String, _ done: Int, _ total: Int) {
        guard let progress else { return }
        progress(ProgressEvent(stage: stage, done: done, total: total,
                               milliseconds: StageTimings.milliseconds(ContinuousClock.now - report.started),
                               input: job.input.name))
    }

    private func perform() throws(JobFailure) {
        let name = job.input.name
        let limits = job.load.limits

        // Header first: the ceiling is decided before a byte of the body is decoded.
        let header: SceneHeader
        if let known = job.header {
            header = known
            report.timings.add(.readHeader, job.headerMilliseconds)
        } else {
            header = try step(.input) { () throws(SplatError) in
                try report.time(.readHeader) { () throws(SplatError) in
                    try SceneLoader.readHeader(job.input, format: job.load.format, limits: limits)
                }
            }
        }
        report.header = header
        report.verdict = CeilingVerdict(header: header, limits: limits)
        // What the header implies; replaced by the decoded scene's own decision below.
        report.decision = header.frameDecision(explicit: job.load.sourceFrame, flip: job.load.flip,
                                               renderFrame: job.load.renderFrame)
        report.note(header.warnings)
        try step(.input) { () throws(SplatError) in
            try limits.checkScene(count: header.count, fileDegree: header.shDegree, file: name)
            try deadline.check("before decoding")
        }

        emit("decode", 0, 1)
        let loaded = try step(.input) { () throws(SplatError) in
            try SceneLoader.load(job.input, options: job.load, timings: &report.timings)
        }
        emit("decode", 1, 1)
        let scene = loaded.scene
        report.header = loaded.header
        report.decodedCount = scene.count
        report.decision = loaded.decision
        report.note(loaded.header.warnings + scene.warnings)
        try step(.input) { () throws(SplatError) in try deadline.check("after decoding") }

        let views = try planViews(scene: scene, decision: loaded.decision)
        try renderViews(views, scene: scene)
        report.note(scene.warnings)
    }

    // MARK: Cameras

    private func planViews(scene: SplatScene, decision: FrameDecision) throws(JobFailure) -> [PlannedView] {
        let options = job.view
        let cameraGiven = options.camera.position != nil && options.camera.target != nil
        let framing: Framing? = job.needsOrbit || (job.image != nil && !cameraGiven)
            ? report.time(.framing) {
                options.camera.framing(for: scene, width: options.width, height: options.height,
                                       elevationDegrees: job.needsOrbit ? job.orbit.elevationDegrees : AutoFramer.defaultElevationDegrees)
            }
            : nil

        var stillCamera: Camera?
        if job.image != nil {
            let resolved = options.camera.resolve(with: framing)
            report.camera = resolved
            stillCamera = resolved.camera
        }

        var orbit: Turntable?
        if job.needsOrbit, let framing {
            var hints = job.orbit.useCameraHints ? scene.cameraHints : nil
            if hints != nil, !decision.conversion.isIdentity {
                report.note(["the file's safe-orbit hints were not applied: they describe the stored \(decision.sourceFrame.name) axes, and the scene was converted to \(decision.renderFrame.name)"])
                hints = nil
            }
            let planned = try step(.render) { () throws(SplatError) in
                try Turntable(framing: framing, frames: job.orbit.frames, elevationDegrees: job.orbit.elevationDegrees,
                              startAzimuthDegrees: job.orbit.startAzimuthDegrees, fovYDegrees: options.camera.fovYDegrees,
                              hints: hints)
            }
            report.orbit = planned
            report.note(planned.notes)
            if report.camera == nil {
                report.camera = CameraRequest.Resolved(camera: planned.camera(frame: 0), positionSource: "orbit",
                                                       targetSource: "orbit",
                                                       upSource: options.camera.up == nil ? "auto" : "option")
            }
            orbit = planned
        }

        if let sheet = job.sheet, let orbit {
            try step(.render) { () throws(SplatError) in
                try sheet.plan.validate()
                _ = try ContactSheet.layout(count: sheet.plan.views * sheet.plan.rows(on: orbit).count,
                                            tileWidth: options.width, tileHeight: options.height,
                                            columns: sheet.plan.views, downscale: sheet.plan.downscale)
            }
            report.sheet = .object([("path", .string(sheet.path))] + sheet.plan.json(on: orbit))
        }
        if job.animation != nil, let orbit {
            // Every frame is held until the encoder takes them all.
            guard let pixels = CheckedSize.mul(options.width, options.height),
                  let total = CheckedSize.mul(pixels, orbit.frames), total <= ImageLimits.maxPixels else {
                throw JobFailure(error: SplatError(.tooLarge, "an animation of \(orbit.frames) frames of \(options.width)×\(options.height) exceeds \(ImageLimits.maxPixels) pixels held in memory; use fewer frames or a smaller resolution", field: "frames"),
                                 stage: .render)
            }
        }

        var views: [PlannedView] = []
        var byCamera: [CameraKey: Int] = [:]
        func add(_ camera: Camera, _ role: PlannedView.Role) {
            let key = CameraKey(camera)
            if let i = byCamera[key] {
                views[i].roles.append(role)
            } else {
                byCamera[key] = views.count
                views.append(PlannedView(camera: camera, roles: [role]))
            }
        }
        if let stillCamera { add(stillCamera, .image) }
        if let orbit, job.framesDirectory != nil || job.animation != nil {
            for k in 0..<orbit.frames { add(orbit.camera(frame: k), .frame(k)) }
        }
        if let sheet = job.sheet, let orbit {
            for (j, camera) in sheet.plan.cameras(on: orbit).enumerated() { add(camera, .tile(j)) }
        }
        return views
    }

    // MARK: Rendering and output

    private func renderViews(_ views: [PlannedView], scene: SplatScene) throws(JobFailure) {
        let options = job.view
        let settings = options.renderSettings
        let frameCount = report.orbit?.frames ?? 0
        if let directory = job.framesDirectory {
            try step(.output) { () throws(SplatError) in try createDirectory(directory) }
        }

        let renderer = report.time(.prepare) { Renderer(scene: scene, threads: options.threads) }
        var summary = RunReport.RenderSummary()
        summary.antialiased = settings.antialiased ?? (scene.model == .antialiased)
        var animationFrames: [ImageBuffer?] = job.animation == nil ? [] : Array(repeating: nil, count: frameCount)
        var tiles: [ImageBuffer?] = []
        if let sheet = job.sheet, let orbit = report.orbit {
            tiles = Array(repeating: nil, count: sheet.plan.views * sheet.plan.rows(on: orbit).count)
        }
        var frameBytes = 0
        var frameChannels = 0

        for (i, view) in views.enumerated() {
            try step(.render) { () throws(SplatError) in
                try deadline.check(i == 0 ? "before rendering" : "after \(i) of \(views.count) views")
            }
            let result = try step(.render) { () throws(SplatError) in
                try report.time(.render) { () throws(SplatError) in
                    try renderer.render(camera: view.camera, settings: settings)
                }
            }
            summary.add(result)
            for role in view.roles {
                switch role {
                case .image:
                    try deliverImage(result.image)
                case .frame(let k):
                    if let directory = job.framesDirectory {
                        let path = (directory as NSString).appendingPathComponent(SceneJob.frameFileName(k, of: frameCount))
                        frameBytes += try writePNG(result.image, to: path)
                        frameChannels = result.image.channels
                    }
                    if job.animation != nil { animationFrames[k] = result.image }
                case .tile(let j):
                    let plan = job.sheet?.plan ?? SheetPlan()
                    tiles[j] = try step(.encode) { () throws(SplatError) in
                        try report.time(.downscale) { () throws(SplatError) in try result.image.downscaled(by: plan.downscale) }
                    }
                }
            }
            emit("render", i + 1, views.count)
        }
        summary.droppedSplats = renderer.droppedSplatCount
        report.renderStats = summary
        if renderer.droppedSplatCount > 0 {
            scene.warnings.append("renderer skipped \(renderer.droppedSplatCount) splat(s) with unusable values")
        }

        if let directory = job.framesDirectory {
            report.outputs.append(OutputRecord(path: directory, role: .frames, format: "png", bytes: frameBytes,
                                               width: options.width, height: options.height, channels: frameChannels,
                                               frames: frameCount,
                                               extra: [("first", .string(SceneJob.frameFileName(0, of: frameCount)))]))
        }
        if let sheet = job.sheet {
            try step(.render) { () throws(SplatError) in try deadline.check("before composing the sheet") }
            emit("encode", 0, 1)
            let images = tiles.compactMap { $0 }
            let composed = try step(.encode) { () throws(SplatError) in
                try report.time(.composeSheet) { () throws(SplatError) in
                    try ContactSheet.compose(images, columns: sheet.plan.views)
                }
            }
            let bytes = try writePNG(composed, to: sheet.path)
            report.outputs.append(OutputRecord(path: sheet.path, role: .sheet, format: "png", bytes: bytes,
                                               width: composed.width, height: composed.height, channels: composed.channels,
                                               extra: [("tile_width", .int(images.first?.width ?? 0)),
                                                       ("tile_height", .int(images.first?.height ?? 0))]))
            emit("encode", 1, 1)
        }
        if let animation = job.animation {
            try step(.render) { () throws(SplatError) in try deadline.check("before encoding the animation") }
            emit("encode", 0, 1)
            let bytes = try step(.encode) { () throws(SplatError) in
                try report.time(.encodeWebP) { () throws(SplatError) in
                    try AnimatedWebPWriter.encode(frames: animationFrames.compactMap { $0 }, options: animation.settings.writerOptions)
                }
            }
            animationFrames = []
            try writeFile(bytes, to: animation.path)
            report.outputs.append(OutputRecord(path: animation.path, role: .animation, format: "webp", bytes: bytes.count,
                                               width: options.width, height: options.height, frames: frameCount,
                                               extra: [("frame_ms", .int(animation.settings.frameDurationMs)),
                                                       ("lossless", .bool(animation.settings.compression == .lossless))]))
            emit("encode", 1, 1)
        }
    }

    /// The single view: written to its file, or kept for the caller.
    private func deliverImage(_ rendered: ImageBuffer) throws(JobFailure) {
        image = rendered
        switch job.image {
        case .file(let path):
            let bytes = try writePNG(rendered, to: path)
            report.outputs.append(OutputRecord(path: path, role: .image, format: "png", bytes: bytes, width: rendered.width,
                                               height: rendered.height, channels: rendered.channels))
        case .caller:
            imagePNG = try step(.encode) { () throws(SplatError) in
                try report.time(.encodePNG) { () throws(SplatError) in try PNGWriter.encode(rendered) }
            }
        case nil:
            break
        }
    }

    /// Encodes and writes a PNG; returns its size.
    private func writePNG(_ image: ImageBuffer, to path: String) throws(JobFailure) -> Int {
        let bytes = try step(.encode) { () throws(SplatError) in
            try report.time(.encodePNG) { () throws(SplatError) in try PNGWriter.encode(image) }
        }
        try writeFile(bytes, to: path)
        return bytes.count
    }

    private func writeFile(_ bytes: [UInt8], to path: String) throws(JobFailure) {
        try step(.output) { () throws(SplatError) in
            try report.time(.write) { () throws(SplatError) in try AtomicFileWriter.write(bytes, to: path) }
        }
        written.append(path)
    }

    private func createDirectory(_ path: String) throws(SplatError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw SplatError(.io, "exists and is not a folder", file: path)
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SplatError(.io, "cannot create the folder: \(error.localizedDescription)", file: path)
        }
        createdDirectory = path
    }

    private func removeWritten() {
        for path in written { unlink(path) }
        written = []
        if let createdDirectory { rmdir(createdDirectory) }
    }
}

/// A camera's exact bits, so views that coincide are rendered once.
struct CameraKey: Hashable {
    let bits: [UInt64]

    init(_ c: Camera) {
        bits = [c.position.x, c.position.y, c.position.z, c.target.x, c.target.y, c.target.z,
                c.up.x, c.up.y, c.up.z, c.fovYDegrees, c.near].map(\.bitPattern)
    }
}
