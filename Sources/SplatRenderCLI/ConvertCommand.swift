import SplatCore
import SplatFormats
import SplatService

/// `splatrender convert IN OUT.ply|OUT.spz [--to-frame FRAME] [--spz-version 3|4]`: one
/// `ConvertJob` (which holds every rule: output frame, what frame is recorded, safe-orbit hints,
/// the extension → encoder table); this only parses and prints.
enum ConvertCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        var job: ConvertJob
        let load: LoadOptions
        do throws(SplatError) { load = try context.loadOptions() } catch { return context.failInput(error) }
        do throws(SplatError) {
            job = try ConvertJob(input: .path(parsed.positionals[0]), outputPath: parsed.positionals[1],
                                 load: load, targetFrame: parsed.frame(.toFrame),
                                 spzVersion: parsed.integer(.spzVersion))
        } catch {
            return context.usage(error.message)
        }
        if parsed.flag(.keepFrame) && parsed.isGiven(.toFrame) {
            return context.usage("--keep-frame and --to-frame contradict each other")
        }
        job.keepFrame = parsed.flag(.keepFrame)
        if let compression = parsed.choice(.gltfCompression).flatMap(GLTFEncoder.Compression.init(rawValue:)) {
            if parsed.isGiven(.gltfCompression), job.encoding != .glb && job.encoding != .gltf {
                return context.usage("--gltf-compression applies only to .glb and .gltf output")
            }
            job.gltfCompression = compression
        }
        do throws(SplatError) { job.input = try context.sceneInput(parsed.positionals[0]) } catch { return context.failInput(error) }
        if let refused = context.checkReportPath(input: job.input) { return refused }
        let outcome = job.run()
        var report = outcome.report
        if report.succeeded { describe(outcome, job: job, context: context) }
        return context.finish(&report)
    }

    static func describe(_ outcome: ConvertOutcome, job: ConvertJob, context: CommandContext) {
        let report = outcome.report
        for warning in report.warnings { context.warn(warning) }
        guard !context.parsed.flag(.json) else { return }
        if context.verbose, let decision = report.decision {
            context.say("frame: \(decision.summary)" + (outcome.converted ? "" : " (values written unconverted)"))
            context.say("timings: \(report.timings.summary)")
        }
        let frameNote = outcome.dataFrame.map { "frame \($0.name)" } ?? "frame not recorded"
        context.say("wrote \(SplatError.printable(job.outputPath)): \(job.encoding.rawValue), \(outcome.count) splats, SH degree \(outcome.shDegree), \(frameNote), \(outcome.bytes) bytes")
    }
}
