import SplatCore
import SplatFormats
import SplatImage
import SplatService

/// `splatrender [render] SCENE --out FILE.png`: one `SceneJob` with a single view — decode,
/// convert to the render frame (RUB) with the frame decision, choose the camera, render, write
/// the image (PNG, WebP or JPEG by the extension; atomically, or to standard output with `--out -`).
enum RenderCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        guard let outPath = parsed.text(.out) else {
            return context.usage("render needs --out FILE.png (or --out - for standard output)")
        }
        if outPath == "-" {
            if context.stdout.isTerminal {
                return context.usage("refusing to write a binary image to a terminal; redirect standard output or give --out FILE")
            }
            if parsed.text(.report) == "-" || parsed.flag(.json) {
                return context.usage("--out - puts the image on standard output; the report cannot go there too (--report FILE)")
            }
            // With the image on stdout, everything else printed goes to stderr.
            context.textSink = context.stderr
        }
        let encoding = parsed.imageEncoding
        do throws(SplatError) { try encoding.validate(for: outPath == "-" ? nil : outPath) } catch {
            return context.usage(error.message)
        }
        var view = parsed.viewRequest
        do throws(UsageError) { view.camera.trainingView = try parsed.trainingView() } catch {
            return context.usage(error.message)
        }
        let opening = context.openScene(parsed.positionals[0])
        guard case .opened(let input, let load) = opening else { return opening.status }
        let job = SceneJob(command: "render", input: input, load: load, view: view,
                           image: outPath == "-" ? .caller : .file(outPath), timeoutSeconds: parsed.timeoutSeconds,
                           cancellation: context.cancellation)
        let outcome = context.run(job, encoding: encoding)
        var report = outcome.report
        if report.succeeded, outPath == "-", let png = outcome.imageBytes {
            let written = report.time(.write) { context.stdout.write(png) }
            if written, let image = outcome.image {
                let format = (try? encoding.resolvedFormat(for: nil as String?)) ?? .png
                report.outputs.append(OutputRecord(path: "-", role: .image, format: format.rawValue, bytes: png.count,
                                                   width: image.width, height: image.height,
                                                   channels: format.supportsAlpha ? image.channels : 3))
            } else {
                let why = context.stdout.writeFailure.map { ": \($0)" } ?? ""
                report.failed(SplatError(.io, "cannot write the image to standard output\(why)", file: "-"), at: .output)
            }
        }
        if report.succeeded { describe(report, context: context, outPath: outPath) }
        // The report goes to stdout (`--json`, `--report -`) only when the image does not.
        return context.finish(&report)
    }

    /// Warnings, `--verbose` details and the closing line.
    static func describe(_ report: RunReport, context: CommandContext, outPath: String) {
        for warning in report.warnings { context.warn(warning) }
        let json = context.parsed.flag(.json)
        if context.verbose && !json {
            if let decision = report.decision { context.say("frame: \(decision.summary)") }
            if let camera = report.camera { context.say("camera: \(camera.summary)") }
            if let stats = report.renderStats {
                context.say("render: \(stats.visibleSplats) of \(report.decodedCount ?? 0) splats visible, \(stats.tilePairs) tile pairs, coverage \((stats.coverage * 1000).rounded() / 10)%")
            }
            context.say("timings: \(report.timings.summary)")
        }
        if !json, let output = report.outputs.first {
            let kind = output.channels == 4 ? "RGBA" : "RGB"
            let format = output.format.uppercased()
            context.say("wrote \(outPath == "-" ? "\(format) to standard output" : SplatError.printable(outPath)): \(output.width ?? 0)x\(output.height ?? 0) \(kind)\(format == "PNG" ? "" : " " + format), \(report.decodedCount ?? 0) splats")
        }
    }
}
