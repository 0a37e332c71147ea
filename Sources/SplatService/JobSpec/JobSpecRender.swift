import SplatCore
import SplatRender

/// One render of a fleet job: the outputs that share view settings, made by one `SceneJob` over
/// the job's one decoded scene (one renderer; views that coincide rendered once). An image
/// joins an orbit's render only at the default elevation, where its automatic framing is the
/// one `render` computes, so every output is the same bytes the command line makes alone.
struct JobSpecRender {
    var view: ViewRequest
    /// The orbit of the sheet and the animation (the animation's frame count wins).
    var orbit: OrbitOptions?
    /// The quality of the lossy stills (`nil`: lossless WebP, or none yet).
    var quality: Double?
    var hasLossyStill = false
    /// Indices into the job's outputs.
    var image: Int?
    var sheet: Int?
    var animation: Int?
    /// A sheet whose rows widen the framing (`widensFraming`) renders alone.
    var widened = false
    /// `--min-coverage` of the outputs (the blank-frame guard is per job: they share it).
    var minCoverage: Double?

    /// The outputs of `spec` grouped into renders, in output order.
    static func plan(_ spec: JobSpec) -> [JobSpecRender] {
        var renders: [JobSpecRender] = []
        for index in spec.outputs.indices {
            if let fit = renders.firstIndex(where: { $0.accepts(spec.outputs[index]) }) {
                renders[fit].add(spec.outputs[index], at: index)
            } else {
                var fresh = JobSpecRender(view: spec.outputs[index].options.viewRequest)
                fresh.minCoverage = spec.outputs[index].options.minCoverage
                fresh.add(spec.outputs[index], at: index)
                renders.append(fresh)
            }
        }
        return renders
    }

    /// The name a held output goes by: its index, with the extension that picks its format.
    static func name(of index: Int, in spec: JobSpec) -> String {
        "output-\(index)." + (spec.outputs[index].format?.fileExtension ?? "webp")
    }

    /// Whether `output` can be made by this render without changing any output's bytes.
    func accepts(_ output: JobSpec.Output) -> Bool {
        guard output.options.viewRequest == view else { return false }
        if widened || Self.widensFraming(output) || output.options.minCoverage != minCoverage { return false }
        if let format = output.format, format.takesQuality {
            let quality = output.options.imageEncoding.quality
            if hasLossyStill && quality != self.quality { return false }
        }
        let defaultElevation = AutoFramer.defaultElevationDegrees
        switch output.kind {
        case .image:
            return image == nil && (orbit.map { $0.elevationDegrees == defaultElevation } ?? true)
        case .sheet, .animation:
            if output.kind == .sheet ? sheet != nil : animation != nil { return false }
            let wanted = output.options.orbitOptions
            if image != nil && wanted.elevationDegrees != defaultElevation { return false }
            guard let orbit else { return true }
            return orbit.elevationDegrees == wanted.elevationDegrees && orbit.startAzimuthDegrees == wanted.startAzimuthDegrees
                && orbit.useCameraHints == wanted.useCameraHints
        }
    }

    /// Whether `output` is a sheet with rows at elevations besides the orbit's: its framing is
    /// fitted for them too, so its distance is not the one the other outputs get alone.
    static func widensFraming(_ output: JobSpec.Output) -> Bool {
        guard output.kind == .sheet, let rows = output.options.sheetPlan.elevationsDegrees else { return false }
        return rows.contains { $0 != output.options.orbitOptions.elevationDegrees }
    }

    private mutating func add(_ output: JobSpec.Output, at index: Int) {
        widened = widened || Self.widensFraming(output)
        if let format = output.format, format.takesQuality {
            quality = output.options.imageEncoding.quality
            hasLossyStill = true
        }
        switch output.kind {
        case .image:
            image = index
        case .sheet:
            sheet = index
            if orbit == nil { orbit = output.options.orbitOptions }
        case .animation:
            animation = index
            // The sheet's views do not depend on the frame count; the animation's frames do.
            orbit = output.options.orbitOptions
        }
    }

    /// The `SceneJob` that makes these outputs, holding the encoded bytes; its `preloaded`
    /// scene is set once the job's one decode is done.
    func sceneJob(for spec: JobSpec, command: String, input: SceneInput, cancellation: CancellationToken) -> SceneJob {
        let name = { (index: Int) in Self.name(of: index, in: spec) }
        var job = SceneJob(command: command, input: input, load: spec.load, view: view, orbit: orbit ?? OrbitOptions(),
                           image: image.map { .file(name($0)) },
                           sheet: sheet.map { SheetOutput(path: name($0), plan: spec.outputs[$0].options.sheetPlan) },
                           animation: animation.map { AnimationOutput(path: name($0), options: spec.outputs[$0].options.animationOptions) },
                           cancellation: cancellation)
        job.encoding = ImageEncoding(quality: quality)
        job.holdsOutputs = true
        job.minCoverage = minCoverage
        // Admission was decided for the whole job, before its scene was decoded.
        job.memoryBudget = nil
        return job
    }
}
