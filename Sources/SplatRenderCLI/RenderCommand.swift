import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// `splatrender [render] SCENE --out FILE.png`: decode, convert to the render frame (RUB) with
/// the frame decision, choose the camera, render one frame, write the PNG (atomically, or to
/// standard output with `--out -`).
enum RenderCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        guard let outPath = parsed.text("out") else {
            context.stderr.write("error: render needs --out FILE.png (or --out - for standard output) (see --help)\n")
            return ExitCode.usage.rawValue
        }
        let options = DecodeOptions(parsed, path: parsed.positionals[0])
        // With the PNG on stdout, everything else printed goes to stderr.
        if outPath == "-" { context.textSink = context.stderr }
        let report = RunReport(command: .render, input: options.path)
        let status = render(context, options: options, outPath: outPath, report: report)
        return context.finish(report, status, reportSink: context.textSink)
    }

    static func render(_ context: CommandContext, options: DecodeOptions, outPath: String, report: RunReport) -> ExitCode {
        let parsed = context.parsed
        let decoded: DecodedScene
        do throws(SplatError) {
            decoded = try report.time("decode") { () throws(SplatError) in
                try SceneLoader.decode(path: options.path, format: options.format, limits: options.limits, stdin: context.stdin)
            }
        } catch {
            report.failed(error, ExitCode.forInputError(error.kind))
            return report.exitCode
        }
        let scene = decoded.scene
        report.header = decoded.header
        report.verdict = CeilingVerdict(header: decoded.header, limits: options.limits)
        report.decodedCount = scene.count

        let decision = FrameDecision.decide(for: scene, explicit: options.sourceFrame, flip: options.flip)
        report.decision = decision
        report.time("convert_frame") { decision.apply(to: scene, threads: options.threads) }

        let size = parsed.resolution("resolution") ?? (512, 512)
        let request = CameraRequest(position: parsed.vector("camera-pos"), target: parsed.vector("camera-target"),
                                    up: parsed.vector("camera-up"), fovYDegrees: parsed.number("camera-fov") ?? 50)
        let chosen = report.time("framing") { request.resolve(for: scene, width: size.width, height: size.height) }
        report.camera = chosen.json

        var settings = RenderSettings(width: size.width, height: size.height)
        if let bg = parsed.vector("background") { settings.background = SIMD3<Float>(bg) }
        switch parsed.choice("antialiased") {
        case "on": settings.antialiased = true
        case "off": settings.antialiased = false
        default: settings.antialiased = nil
        }
        settings.maxShDegree = parsed.integer("sh-degree")
        settings.threads = options.threads

        let result: RenderResult
        do throws(SplatError) {
            let renderer = report.time("prepare") { Renderer(scene: scene, threads: options.threads) }
            result = try report.time("render") { () throws(SplatError) in try renderer.render(camera: chosen.camera, settings: settings) }
            if renderer.droppedSplatCount > 0 {
                scene.warnings.append("renderer skipped \(renderer.droppedSplatCount) splat(s) with unusable values")
            }
        } catch {
            report.failed(error, renderFailureCode(error.kind))
            return report.exitCode
        }
        report.renderStats = .object([
            ("visible_splats", .int(result.stats.visibleSplats)),
            ("tile_pairs", .int(result.stats.tilePairs)),
            ("coverage", .double(result.coverage)),
            ("antialiased", .bool(settings.antialiased ?? (scene.model == .antialiased))),
            ("preprocess_ms", .double(result.stats.preprocessSeconds * 1000)),
            ("bin_sort_ms", .double(result.stats.binSortSeconds * 1000)),
            ("composite_ms", .double(result.stats.compositeSeconds * 1000)),
        ])
        report.note(decoded.header.warnings + scene.warnings)

        let png: [UInt8]
        do throws(SplatError) {
            png = try report.time("encode_png") { () throws(SplatError) in try PNGWriter.encode(result.image) }
        } catch {
            report.failed(error, .internalError)
            return report.exitCode
        }
        if outPath == "-" {
            let written = report.time("write") { context.stdout.write(png) }
            guard written else {
                report.failed(SplatError(.io, "cannot write the PNG to standard output", file: "-"), .outputIOError)
                return report.exitCode
            }
        } else {
            do throws(SplatError) {
                try report.time("write") { () throws(SplatError) in try AtomicFileWriter.write(png, to: outPath) }
            } catch {
                report.failed(error, .cannotCreate)
                return report.exitCode
            }
        }
        let image = result.image
        report.outputs.append(.object([
            ("path", .string(outPath)),
            ("format", .string("png")),
            ("width", .int(image.width)),
            ("height", .int(image.height)),
            ("channels", .int(image.channels)),
            ("bytes", .int(png.count)),
        ]))

        for warning in report.warnings { context.warn(warning) }
        if context.verbose && !parsed.flag("json") {
            context.say("frame: \(decision.summary)")
            context.say("camera: \(chosen.summary)")
            context.say("render: \(result.stats.visibleSplats) of \(scene.count) splats visible, \(result.stats.tilePairs) tile pairs, coverage \((result.coverage * 1000).rounded() / 10)%")
            context.say("timings: \(report.timingSummary)")
        }
        if !parsed.flag("json") {
            let kind = image.hasAlpha ? "RGBA" : "RGB"
            context.say("wrote \(outPath == "-" ? "PNG to standard output" : outPath): \(image.width)x\(image.height) \(kind), \(scene.count) splats")
        }
        return .ok
    }

    /// Render-stage failures: a bad camera is a usage problem, a frame over the tile-pair budget
    /// is refused like an over-large decode, anything else is ours.
    static func renderFailureCode(_ kind: SplatErrorKind) -> ExitCode {
        switch kind {
        case .invalidArgument: .usage
        case .tooLarge: .tooLarge
        case .timeout: .timeout
        default: .internalError
        }
    }
}
