import Foundation
import SplatCore
import SplatImage
import SplatRender

extension JobExecution {
    /// Renders and writes `views`. With `retryBelow`, stops at the first view whose coverage is
    /// below it (or shows no splat) and returns false, before the sheet and the animation are
    /// made: the caller frames again (`CoverageGuard`). `releasingScene` renders a single view
    /// with `Renderer.renderLastFrame`: the scene is unusable afterwards. `everySplatUsable`
    /// (`DecodedScene.everySplatUsable`) spares the renderer its count of unusable splats.
    func renderViews(_ views: [PlannedView], scene: SplatScene, retryBelow: Double? = nil,
                     releasingScene: Bool = false, everySplatUsable: Bool = false) throws(JobFailure) -> Bool {
        let options = job.view
        let settings = options.settings
        let frameCount = report.orbit?.frames ?? 0
        if let directory = job.framesDirectory {
            try step(.output) { () throws(SplatError) in try outputs.createDirectory(directory) }
        }

        let preparation = job.preparation
        let renderer = try step(.render) { () throws(SplatError) in
            try report.time(.prepare) { () throws(SplatError) in
                try Renderer(scene: scene, threads: settings.threads, preparation: preparation,
                             unusableSplats: everySplatUsable ? 0 : nil, cancellation: token)
            }
        }
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
            try checkCancellation(i == 0 ? "before rendering" : "after \(i) of \(views.count) views", stage: .render)
            let result = try step(.render) { () throws(SplatError) in
                try report.time(.render) { () throws(SplatError) in
                    releasingScene && views.count == 1
                        ? try renderer.renderLastFrame(camera: view.camera, settings: settings)
                        : try renderer.render(camera: view.camera, settings: settings)
                }
            }
            summary.add(result)
            for role in view.roles {
                switch role {
                case .image: coverage.add(result, to: .image)
                case .tile: coverage.add(result, to: .sheet)
                case .frame:
                    if job.framesDirectory != nil { coverage.add(result, to: .frames) }
                    if job.animation != nil { coverage.add(result, to: .animation) }
                }
            }
            if let retryBelow, result.coverage < retryBelow || result.stats.visibleSplats == 0 { return false }
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
                                               width: settings.width, height: settings.height, channels: frameChannels,
                                               frames: frameCount,
                                               extra: [("first", .string(SceneJob.frameFileName(0, of: frameCount)))]))
        }
        if let sheet = job.sheet, let orbit = report.orbit {
            try checkCancellation("before composing the sheet", stage: .render)
            emit("encode", 0, 1)
            let images = tiles.compactMap { $0 }
            let composed = try step(.encode) { () throws(SplatError) in
                try report.time(.composeSheet) { () throws(SplatError) in
                    try Self.composeSheet(images, plan: sheet.plan, cells: sheet.plan.cellCount(on: orbit),
                                          background: settings.background)
                }
            }
            let (bytes, format) = try writeStill(composed, to: sheet.path)
            report.outputs.append(OutputRecord(path: sheet.path, role: .sheet, format: format.rawValue, bytes: bytes,
                                               width: composed.width, height: composed.height, channels: composed.channels,
                                               extra: [("tile_width", .int(images.first?.width ?? 0)),
                                                       ("tile_height", .int(images.first?.height ?? 0))]))
            emit("encode", 1, 1)
        }
        if let animation = job.animation {
            try checkCancellation("before encoding the animation", stage: .render)
            emit("encode", 0, 1)
            let bytes = try step(.encode) { () throws(SplatError) in
                try report.time(.encodeWebP) { () throws(SplatError) in
                    var options = animation.options
                    options.backgroundColor = options.backgroundColor ?? settings.background
                    return try AnimatedWebPWriter.encode(frames: animationFrames.compactMap { $0 }, options: options,
                                                         cancellation: token)
                }
            }
            animationFrames = []
            try writeFile(bytes, to: animation.path)
            report.outputs.append(OutputRecord(path: animation.path, role: .animation, format: "webp", bytes: bytes.count,
                                               width: settings.width, height: settings.height, frames: frameCount,
                                               extra: [("frame_ms", .int(animation.options.frameDurationMs)),
                                                       ("lossless", .bool(animation.options.compression == .lossless))]))
            emit("encode", 1, 1)
        }
        return true
    }

    /// The single view: written to its file, or kept for the caller.
    private func deliverImage(_ rendered: ImageBuffer) throws(JobFailure) {
        image = rendered
        switch job.image {
        case .file(let path):
            let (bytes, format) = try writeStill(rendered, to: path)
            report.outputs.append(OutputRecord(path: path, role: .image, format: format.rawValue, bytes: bytes,
                                               width: rendered.width, height: rendered.height,
                                               channels: format.supportsAlpha ? rendered.channels : 3))
        case .caller:
            let format = try step(.encode) { () throws(SplatError) in try job.encoding.resolvedFormat(for: nil as String?) }
            imageBytes = try encodeStill(rendered, as: format)
        case nil:
            break
        }
    }

    /// Encodes and writes a PNG frame; returns its size.
    private func writePNG(_ image: ImageBuffer, to path: String) throws(JobFailure) -> Int {
        let bytes = try encodeStill(image, as: .png)
        try writeFile(bytes, to: path)
        return bytes.count
    }

    /// Encodes and writes a still in the job's encoding for `path`; returns its size and format.
    private func writeStill(_ image: ImageBuffer, to path: String) throws(JobFailure) -> (Int, ImageFormat) {
        let format = try step(.encode) { () throws(SplatError) in try job.encoding.resolvedFormat(for: path) }
        let bytes = try encodeStill(image, as: format)
        try writeFile(bytes, to: path)
        return (bytes.count, format)
    }

    /// The still's bytes, under the job's token; JPEG composites onto the background (or white).
    func encodeStill(_ image: ImageBuffer, as format: ImageFormat) throws(JobFailure) -> [UInt8] {
        let stage: JobStage = switch format {
        case .png: .encodePNG
        case .webp: .encodeWebP
        case .jpeg: .encodeJPEG
        }
        // A quality asked for a lossy output does not apply to the lossless ones beside it.
        let q = format.takesQuality ? job.encoding.quality : nil
        return try step(.encode) { () throws(SplatError) in
            try report.time(stage) { () throws(SplatError) in
                try StillImageEncoder.encode(image, as: format, quality: q, matte: job.view.settings.background,
                                             threads: job.view.settings.threads, cancellation: token)
            }
        }
    }

    private func writeFile(_ bytes: [UInt8], to path: String) throws(JobFailure) {
        try step(.output) { () throws(SplatError) in
            try report.time(.write) { () throws(SplatError) in try outputs.write(bytes, to: path) }
        }
    }
}
