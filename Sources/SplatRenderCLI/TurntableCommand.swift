import SplatCore
import SplatService

/// `splatrender turntable SCENE --out DIR [--frames N] [--sheet FILE.png] [--animation FILE.webp]`:
/// one `SceneJob` whose outputs are the orbit's frames, a contact sheet and an animated WebP.
/// The scene is decoded once and one renderer serves every frame.
enum TurntableCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let framesDirectory = parsed.text(.out), sheet = parsed.text(.sheet), animation = parsed.text(.animation)
        guard framesDirectory != nil || sheet != nil || animation != nil else {
            return context.usage("turntable needs an output: --out DIR, --sheet FILE.png or --animation FILE.webp")
        }
        if [framesDirectory, sheet, animation].contains("-") {
            return context.usage("turntable writes files; standard output (-) is only for render --out")
        }
        let opening = context.openScene(parsed.positionals[0])
        guard case .opened(let input, let load) = opening else { return opening.status }
        let job = SceneJob(command: CommandName.turntable.rawValue, input: input,
                           load: load, view: parsed.viewRequest, orbit: parsed.orbitOptions,
                           framesDirectory: framesDirectory,
                           sheet: sheet.map { SheetOutput(path: $0, plan: parsed.sheetPlan) },
                           animation: animation.map { AnimationOutput(path: $0, options: parsed.animationOptions) },
                           timeoutSeconds: parsed.timeoutSeconds, cancellation: context.cancellation)
        let outcome = context.run(job, encoding: parsed.imageEncoding)
        var report = outcome.report
        if report.succeeded { describe(report, context: context) }
        return context.finish(&report)
    }

    static func describe(_ report: RunReport, context: CommandContext) {
        for warning in report.warnings { context.warn(warning) }
        guard !context.parsed.flag(.json) else { return }
        if context.verbose {
            if let decision = report.decision { context.say("frame: \(decision.summary)") }
            if let orbit = report.orbit {
                let c = orbit.framing.center
                context.say("orbit: \(orbit.frames) frames about centre (\(c.x), \(c.y), \(c.z)) at distance \(orbit.framing.distance), elevation \(orbit.elevationDegrees)°, frame 0 at azimuth \(orbit.startAzimuthDegrees)°" + (orbit.hintsApplied ? " (safe-orbit hints applied)" : ""))
            }
            if let camera = report.camera { context.say("frame 0 camera: \(camera.summary)") }
            if let stats = report.renderStats {
                context.say("render: \(stats.views) views, coverage \((stats.coverageMin * 1000).rounded() / 10)–\((stats.coverageMax * 1000).rounded() / 10)%")
            }
            context.say("timings: \(report.timings.summary)")
        }
        for output in report.outputs {
            let size = "\(output.width ?? 0)x\(output.height ?? 0)"
            switch output.role {
            case .frames:
                context.say("wrote \(output.frames ?? 0) frames to \(SplatError.printable(output.path)) (\(size) \(output.channels == 4 ? "RGBA" : "RGB"))")
            case .animation:
                context.say("wrote \(SplatError.printable(output.path)): animated WebP, \(output.frames ?? 0) frames of \(size), \(output.bytes) bytes")
            default:
                context.say("wrote \(SplatError.printable(output.path)): \(size) contact sheet")
            }
        }
    }
}
