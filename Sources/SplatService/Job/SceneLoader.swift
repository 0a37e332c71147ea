import SplatCore
import SplatFormats
import SplatRender
import Synchronization

/// Reading a scene the way every job does: header or full decode from a `SceneInput`, then the
/// frame decision (made once, from the decoded scene's facts) and the conversion. Errors name
/// the input; bytes named `-` that fail detection get the hint that `.splat` needs its format.
public enum SceneLoader {
    /// The header of `input`, without decoding the body where the format allows.
    public static func readHeader(_ input: SceneInput, format: SplatFormat? = nil,
                                  limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        try attributed(input, format: format) { () throws(SplatError) in
            switch input {
            case .path(let path): try SplatFile.readHeader(path: path, format: format, limits: limits)
            case .memory(let bytes): try SplatFile.readHeader(bytes, format: format, limits: limits)
            }
        }
    }

    /// The decoded scene, values in the file's own frame. A caller that already read the header
    /// passes its format, so detection is not repeated. `geometryReady`: see `SPZDecoder.decode`.
    public static func decode(_ input: SceneInput, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                              gltf: GLTFDecoder.Options = GLTFDecoder.Options(),
                              sh: SHStorage = .float32,
                              geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        try attributed(input, format: format) { () throws(SplatError) in
            switch input {
            case .path(let path):
                try SplatFile.decode(path: path, format: format, limits: limits, gltf: gltf, sh: sh, geometryReady: geometryReady)
            case .memory(let bytes):
                try SplatFile.decode(bytes, format: format, limits: limits, gltf: gltf, sh: sh, geometryReady: geometryReady)
            }
        }
    }

    /// Decodes and flattens node transforms (glTF instances: positions, covariances and SH moved
    /// into the scene), so every stage after it sees one plain scene in the stored frame.
    public static func decodeFlattened(_ input: SceneInput, options: LoadOptions,
                                       geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        let decoded = try decode(input, format: options.format, limits: options.limits, gltf: options.gltf, sh: options.shStorage,
                                 geometryReady: geometryReady)
        guard decoded.scene.nodeInstances != nil else { return decoded }
        let flat = try attributed(input, format: options.format) { () throws(SplatError) in
            try SceneTransform.flatten(decoded.scene, limits: options.limits, threads: options.threads)
        }
        return DecodedScene(scene: flat, header: decoded.header)
    }

    /// Decodes, decides the source frame (`FrameDecision.decide` on the scene's facts) and
    /// converts the scene to `options.frame.targetFrame` in place; the wall times go to `timings`
    /// under `decode` and `convert_frame`.
    public static func load(_ input: SceneInput, options: LoadOptions = LoadOptions(),
                            timings: inout StageTimings) throws(SplatError) -> LoadedScene {
        // SPZ v4 hands over its geometry while the SH stream still inflates: the estimate then
        // runs, on one thread, on a core that would otherwise wait for that stream — when the
        // stream is long enough to hide it (`hidesEarlyEstimate`).
        let early = EarlyUpEstimate()
        let decoded = try timings.time(.decode) { () throws(SplatError) in
            try decodeFlattened(input, options: options) { scene in
                guard hidesEarlyEstimate(scene), needsEstimate(scene, options: options) else { return }
                early.keep(UpEstimator.estimate(scene, hints: UpHints(scene: scene, cameras: options.cameras), threads: 1), for: scene)
            }
        }
        let (facts, estimate) = timings.time(.estimateUp) { () -> (FrameFacts, UpEstimate?) in
            guard needsEstimate(decoded.scene, options: options) else { return (knownFacts(decoded.scene, options: options), nil) }
            return inferredFacts(decoded.scene, options: options, estimate: early.estimate(for: decoded.scene))
        }
        let decision = FrameDecision.decide(facts, options: options.frame)
        timings.time(.convertFrame) { decision.apply(to: decoded.scene, threads: options.threads) }
        return LoadedScene(decoded: decoded, decision: decision, upEstimate: estimate)
    }

    /// SH bytes (codes or floats) below which a scene's SH stream inflates faster than the up
    /// estimate runs on one thread (a fixed-size sample, about 10 ms): there the early estimate
    /// held the decode up while the other cores idled (a biker thumbnail's decode stage: 18 ms,
    /// of which 3.5 decoding), so it runs after the decode on every thread instead. The estimate
    /// does not depend on the thread count.
    static let earlyEstimateMinimumSHBytes = 16 << 20

    /// Whether `scene`'s SH stream, still inflating when its geometry is handed over, outlasts
    /// the estimate.
    static func hidesEarlyEstimate(_ scene: SplatScene) -> Bool {
        let perSplat = scene.quantizedSH?.stride ?? scene.shFloatsPerSplat * MemoryLayout<Float>.stride
        let (bytes, overflow) = scene.count.multipliedReportingOverflow(by: perSplat)
        return overflow || bytes >= earlyEstimateMinimumSHBytes
    }

    /// Whether `load` computes the up estimate for `scene`: always, unless the options say only
    /// when it decides and the frame decision would not consult it.
    static func needsEstimate(_ scene: SplatScene, options: LoadOptions) -> Bool {
        options.upEstimate == .always || FrameDecision.consultsEstimate(knownFacts(scene, options: options), options: options.frame)
    }

    /// The scene's frame facts with the training cameras' up, without an estimate.
    static func knownFacts(_ scene: SplatScene, options: LoadOptions) -> FrameFacts {
        var facts = scene.frameFacts
        facts.trainingUp = trainingUp(UpHints(scene: scene, cameras: options.cameras))
        return facts
    }

    private static func trainingUp(_ hints: UpHints) -> SignedAxis? {
        hints.cameraUps.isEmpty ? nil : SignedAxis.nearest(to: hints.cameraUps.reduce(SIMD3<Double>.zero, +))
    }

    /// The decoded scene's frame facts with what is inferred about up: the training cameras' up
    /// and the estimate from the splats (both in the stored frame, before any conversion).
    public static func inferredFacts(_ scene: SplatScene, options: LoadOptions) -> (FrameFacts, UpEstimate) {
        inferredFacts(scene, options: options, estimate: nil)
    }

    /// `inferredFacts` with the estimate already made for this scene, when it was.
    static func inferredFacts(_ scene: SplatScene, options: LoadOptions, estimate early: UpEstimate?) -> (FrameFacts, UpEstimate) {
        let hints = UpHints(scene: scene, cameras: options.cameras)
        let estimate = early ?? UpEstimator.estimate(scene, hints: hints, threads: options.threads)
        var facts = scene.frameFacts
        facts.estimatedUp = FrameFacts.EstimatedUp(axis: estimate.axis, confidence: estimate.confidence,
                                                   threshold: UpEstimator.confidenceThreshold)
        facts.trainingUp = trainingUp(hints)
        return (facts, estimate)
    }

    /// `load` without the timings.
    public static func load(_ input: SceneInput, options: LoadOptions = LoadOptions()) throws(SplatError) -> LoadedScene {
        var timings = StageTimings()
        return try load(input, options: options, timings: &timings)
    }

    /// Runs `body`, naming the input in its error and adding the one hint a caller with anonymous
    /// bytes needs: `.splat` has no signature.
    private static func attributed<T>(_ input: SceneInput, format: SplatFormat?,
                                      _ body: () throws(SplatError) -> T) throws(SplatError) -> T {
        do throws(SplatError) {
            return try body()
        } catch {
            let name = input.name
            guard name == "-", format == nil, error.kind == .badMagic else { throw error.inFile(name) }
            var copy = error.inFile("-")
            copy.message += "; .splat data on standard input needs --format splat"
            throw copy
        }
    }
}

/// The up estimate a decoder's `geometryReady` made, kept for the scene it was made from: a
/// glTF whose nodes are flattened afterwards is a different scene, and is estimated again.
private final class EarlyUpEstimate: @unchecked Sendable {
    private struct Kept {
        weak var scene: SplatScene?
        let estimate: UpEstimate
    }
    private let kept = Mutex<Kept?>(nil)

    func keep(_ estimate: UpEstimate, for scene: SplatScene) {
        kept.withLock { $0 = Kept(scene: scene, estimate: estimate) }
    }

    func estimate(for scene: SplatScene) -> UpEstimate? {
        kept.withLock { kept in kept.flatMap { $0.scene === scene ? $0.estimate : nil } }
    }
}
