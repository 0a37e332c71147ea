import SplatCore
import SplatFormats

/// Converting a scene file to another format, exactly as `splatrender convert` does: decode,
/// decide the frame, convert the values when asked, record what frame they are in, encode by
/// the output's extension and write atomically.
///
/// Frame rules: by default each output is written in its own format's convention — PLY in RDF
/// (so every PLY viewer shows it upright), SPZ in RUB with the coordinate-system extension
/// recorded — converted from the frame decision of the source (option, file declaration,
/// training cameras, the up estimate, the format's convention: exactly as a render decides).
/// `targetFrame` (`--to-frame`) names another frame; `flip` adds a half turn about X.
/// `keepFrame` writes the stored values unchanged (what value-by-value comparisons with other
/// decoders need); then the output records the frame the data is in only when it is known —
/// from an option or the file, or the conventions of PLY, compressed PLY, `.splat` and SOG, but
/// not an undeclared SPZ, whose frame is the open question of `formats.md` 10.1. Safe-orbit
/// hints survive only an identity conversion.
public struct ConvertJob: Sendable {
    public var input: SceneInput
    public var outputPath: String
    public var encoding: SceneEncoding
    public var load: LoadOptions
    /// `--to-frame`: convert the values into this frame before writing.
    public var targetFrame: CoordinateSystem?
    /// SPZ container version (3 or 4); only for `.spz` output.
    public var spzVersion: Int?
    /// `--gltf-compression`: glTF output plain or SPZ-compressed.
    public var gltfCompression: GLTFEncoder.Compression = .none
    /// `--keep-frame`: write the stored values unchanged.
    public var keepFrame = false

    /// A conversion of `input` into `outputPath`, its encoding from the extension. Throws
    /// `invalid_argument` for an unknown extension or an SPZ version asked of another format.
    public init(input: SceneInput, outputPath: String, load: LoadOptions = LoadOptions(),
                targetFrame: CoordinateSystem? = nil, spzVersion: Int? = nil) throws(SplatError) {
        guard let encoding = SceneEncoding(path: outputPath) else {
            let known = SceneEncoding.allCases.map { ".\($0.rawValue)" }.joined(separator: " or ")
            throw SplatError(.invalidArgument, "convert writes \(known); cannot tell the format of '\(outputPath)'", field: "out")
        }
        if spzVersion != nil, encoding != .spz {
            throw SplatError(.invalidArgument, "--spz-version applies only to .spz output", field: "spz-version")
        }
        self.input = input
        self.outputPath = outputPath
        self.encoding = encoding
        self.load = load
        self.targetFrame = targetFrame
        self.spzVersion = spzVersion
    }

    /// Runs the conversion. Never throws: failures are in `report.error`.
    public func run() -> ConvertOutcome {
        var report = RunReport(command: "convert", input: input.name)
        var outcome = ConvertOutcome(report: report)
        do throws(JobFailure) {
            try perform(&report, &outcome)
        } catch {
            report.failed(error.error, at: error.stage)
        }
        report.finish()
        outcome.report = report
        return outcome
    }

    private func perform(_ report: inout RunReport, _ outcome: inout ConvertOutcome) throws(JobFailure) {
        do throws(SplatError) {
            try OutputPreflight.check(files: [outputPath], input: input)
        } catch {
            throw JobFailure(error: error, stage: .output)
        }
        let decoded: DecodedScene
        do throws(SplatError) {
            decoded = try report.time(.decode) { () throws(SplatError) in
                try SceneLoader.decodeFlattened(input, options: load)
            }
        } catch {
            throw JobFailure(error: error, stage: .input)
        }
        let scene = decoded.scene
        report.header = decoded.header
        report.verdict = SceneAdmission.verdict(for: decoded.header, limits: load.limits)
        report.decodedCount = scene.count

        var frame = load.frame
        let decision: FrameDecision
        let converts = !keepFrame || targetFrame != nil || frame.flip
        if converts {
            frame.targetFrame = targetFrame ?? encoding.conventionalFrame
            let (facts, estimate) = report.time(.estimateUp) { SceneLoader.inferredFacts(scene, options: load) }
            report.upEstimate = estimate
            decision = FrameDecision.decide(facts, options: frame)
            report.time(.convertFrame) { decision.apply(to: scene, threads: load.threads) }
            if !decision.keepsCameraHints { scene.cameraHints = nil }
        } else {
            // The stored values as they are: the decision only says what frame they are in.
            frame.up = .convention
            let stored = FrameDecision.decide(for: scene, options: frame)
            frame.targetFrame = stored.sourceFrame
            decision = FrameDecision.decide(for: scene, options: frame)
        }
        report.decision = decision
        let frameKnown = converts || decision.reason != .formatDefault || decoded.header.format != .spz
        let dataFrame: CoordinateSystem? = frameKnown ? decision.renderFrame : nil
        // The encoders read the frame to record from the scene.
        scene.declaredFrame = dataFrame
        if let dataFrame, dataFrame != encoding.conventionalFrame, !encoding.recordsFrame {
            scene.warnings.append("\(encoding.rawValue.uppercased()) readers assume \(encoding.conventionalFrame.name), but the values are written in \(dataFrame.name)")
        }
        report.note(decoded.header.warnings + scene.warnings)

        let bytes: [UInt8]
        do throws(SplatError) {
            let written = try report.time(.encode) { () throws(SplatError) in
                try encoding.encode(scene, options: SceneEncoding.Options(spzVersion: spzVersion, gltfCompression: gltfCompression),
                                    threads: load.threads)
            }
            bytes = written.bytes
            report.note(written.warnings)
        } catch {
            throw JobFailure(error: error.inFile(outputPath), stage: .encode)
        }
        do throws(SplatError) {
            try report.time(.write) { () throws(SplatError) in try AtomicFileWriter.write(bytes, to: outputPath) }
        } catch {
            throw JobFailure(error: error, stage: .output)
        }
        report.outputs.append(OutputRecord(path: outputPath, role: .scene, format: encoding.rawValue, bytes: bytes.count, extra: [
            ("count", .int(scene.count)),
            ("sh_degree", .int(scene.shDegree)),
            ("frame", .optional(dataFrame) { .string($0.name) }),
        ]))
        outcome.count = scene.count
        outcome.shDegree = scene.shDegree
        outcome.dataFrame = dataFrame
        outcome.bytes = bytes.count
        outcome.converted = converts
    }
}

/// What a conversion wrote.
public struct ConvertOutcome: Sendable {
    public var report: RunReport
    public var count = 0
    public var shDegree = 0
    /// The frame the written values are in, when known (and recorded in SPZ output).
    public var dataFrame: CoordinateSystem?
    public var bytes = 0
    /// Whether the values were converted (`targetFrame` or `flip`), rather than written as stored.
    public var converted = false
}
