import SplatCore
import SplatFormats
import SplatService

/// `splatrender convert IN OUT.ply|OUT.spz [--to-frame FRAME] [--spz-version 3|4]`.
///
/// By default the values are written in the source's own stored frame, unconverted (what the
/// reference tools do). With `--to-frame` the frame decision's source frame (option, file
/// declaration or format convention) is converted to FRAME; `--flip` adds a half turn about X
/// in the output frame. SPZ output records the frame the data is in when it is known: always
/// after `--to-frame`, when the source frame came from `--source-frame` or the file, and for the
/// RDF convention of PLY, compressed PLY, `.splat` and SOG — but not for an undeclared SPZ,
/// whose frame is the open question of `formats.md` 10.1.
enum ConvertCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let options = DecodeOptions(parsed, path: parsed.positionals[0])
        let outPath = parsed.positionals[1]
        guard let encoding = SceneEncoding(path: outPath) else {
            context.stderr.write("error: convert writes .ply or .spz; cannot tell the format of '\(outPath)' (see --help)\n")
            return ExitCode.usage.rawValue
        }
        if encoding == .ply, parsed.isGiven("spz-version") {
            context.stderr.write("error: --spz-version applies only to .spz output (see --help)\n")
            return ExitCode.usage.rawValue
        }
        var report = RunReport(command: CommandName.convert.rawValue, input: options.path)
        convert(context, options: options, to: outPath, as: encoding, report: &report)
        return context.finish(&report)
    }

    static func convert(_ context: CommandContext, options: DecodeOptions, to outPath: String, as encoding: SceneEncoding,
                        report: inout RunReport) {
        let parsed = context.parsed
        let decoded: DecodedScene
        let input = context.sceneInput(options.path)
        do throws(SplatError) {
            decoded = try report.time(.decode) { () throws(SplatError) in
                try SceneLoader.decode(input, format: options.format, limits: options.limits)
            }
        } catch {
            report.failed(error, at: .input)
            return
        }
        let scene = decoded.scene
        report.header = decoded.header
        report.verdict = CeilingVerdict(header: decoded.header, limits: options.limits)
        report.decodedCount = scene.count

        let target = parsed.frame("to-frame")
        let decided = FrameDecision.decide(for: scene, explicit: options.sourceFrame)
        let decision = FrameDecision(sourceFrame: decided.sourceFrame, reason: decided.reason, flip: options.flip,
                                     renderFrame: target ?? decided.sourceFrame)
        report.decision = decision
        if target != nil || options.flip {
            report.time(.convertFrame) { decision.apply(to: scene, threads: options.threads) }
            // The safe-orbit hints describe elevations about the old up axis.
            if !decision.conversion.isIdentity { scene.cameraHints = nil }
        }
        let frameKnown = target != nil || decision.reason != .formatDefault || decoded.header.format != .spz
        let dataFrame: CoordinateSystem? = frameKnown ? decision.renderFrame : nil
        // The encoders read the frame to record from the scene.
        scene.declaredFrame = dataFrame
        if encoding == .ply, let dataFrame, dataFrame != .rdf {
            scene.warnings.append("PLY readers assume RDF, but the values are written in \(dataFrame.name)")
        }
        report.note(decoded.header.warnings + scene.warnings)

        let bytes: [UInt8]
        do throws(SplatError) {
            bytes = try report.time(.encode) { () throws(SplatError) in
                try encoding.encode(scene, spzVersion: parsed.integer("spz-version"))
            }
        } catch {
            report.failed(error.inFile(outPath), at: .encode)
            return
        }
        do throws(SplatError) {
            try report.time(.write) { () throws(SplatError) in try AtomicFileWriter.write(bytes, to: outPath) }
        } catch {
            report.failed(error, at: .output)
            return
        }
        report.outputs.append(OutputRecord(path: outPath, role: .scene, format: encoding.rawValue, bytes: bytes.count, extra: [
            ("count", .int(scene.count)),
            ("sh_degree", .int(scene.shDegree)),
            ("frame", .optional(dataFrame) { .string($0.name) }),
        ]))

        for warning in report.warnings { context.warn(warning) }
        guard !parsed.flag("json") else { return }
        if context.verbose {
            context.say("frame: \(decision.summary)" + (target == nil && !options.flip ? " (values written unconverted)" : ""))
            context.say("timings: \(report.timings.summary)")
        }
        let frameNote = dataFrame.map { "frame \($0.name)" } ?? "frame not recorded"
        context.say("wrote \(outPath): \(encoding.rawValue), \(scene.count) splats, SH degree \(scene.shDegree), \(frameNote), \(bytes.count) bytes")
    }
}

/// The output formats `convert` writes, chosen by the output file's extension.
enum SceneEncoding: String {
    case ply
    case spz

    init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".ply") { self = .ply } else if lower.hasSuffix(".spz") { self = .spz } else { return nil }
    }

    /// Encodes `scene`; SPZ records `scene.declaredFrame` and `scene.cameraHints` as extensions.
    func encode(_ scene: SplatScene, spzVersion: Int?) throws(SplatError) -> [UInt8] {
        switch self {
        case .ply:
            return PLYEncoder.encode(scene)
        case .spz:
            var options = SPZEncoder.Options(version: spzVersion ?? 4, declaredFrame: scene.declaredFrame)
            options.cameraHints = scene.cameraHints
            return try SPZEncoder.encode(scene, options: options)
        }
    }
}
