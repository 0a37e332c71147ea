/// Which frame a scene's stored values are taken to be in, which stored axis is up, why, and the
/// one change of frame that brings them into the render frame (RUB) — made once per job, here.
///
/// Authority, highest first (`formats.md` 7.3 extended with up inference): an explicit
/// `--source-frame` / `--up`, then a frame the file declares, then the training cameras' up, then
/// a confident estimate from the splats (`--up auto`, the default), then the format's convention.
/// A chosen up other than the frame's own is reached by the smallest proper rotation
/// (`UpAlignment`), never a mirror: for up on ±Y/±Z that is another named frame
/// (`CoordinateSystem.frame(forUp:convention:)`), for ±X a rotation after the conversion.
public struct FrameDecision: Sendable, Equatable {
    public enum Reason: String, Sendable, Codable {
        case option
        case fileDeclaration = "file_declaration"
        case formatDefault = "format_default"
    }

    /// Why the up axis is the one it is.
    public enum UpSource: String, Sendable, Codable {
        /// The frame's own up (given, declared or conventional): nothing inferred.
        case frame
        /// `--up` named it.
        case option
        /// The training cameras (`--cameras`) hold it up.
        case trainingCameras = "training_cameras"
        /// A confident estimate from the splats.
        case estimate
    }

    /// The frame the stored values are read in (after the up choice when it is a named frame).
    public var sourceFrame: CoordinateSystem
    /// The frame given, declared or conventional, before the up choice; `reason` says which.
    public var baseFrame: CoordinateSystem
    /// Why the base frame is the one it is.
    public var reason: Reason
    /// The stored axis shown as up.
    public var up: SignedAxis
    public var upSource: UpSource
    /// The estimator's confidence, when the estimate decided.
    public var upConfidence: Double?
    /// The rotation after the frame conversion that an up on ±X needs (no named frame has X up).
    public var upRotation: SceneRotation?
    /// A half turn about X in the render frame after everything else (`--flip`).
    public var flip: Bool
    public var renderFrame: CoordinateSystem

    public init(sourceFrame: CoordinateSystem, reason: Reason, baseFrame: CoordinateSystem? = nil, up: SignedAxis? = nil,
                upSource: UpSource = .frame, upConfidence: Double? = nil, upRotation: SceneRotation? = nil,
                flip: Bool = false, renderFrame: CoordinateSystem = .render) {
        self.sourceFrame = sourceFrame
        self.baseFrame = baseFrame ?? sourceFrame
        self.reason = reason
        self.up = up ?? sourceFrame.upAxis
        self.upSource = upSource
        self.upConfidence = upConfidence
        self.upRotation = upRotation
        self.flip = flip
        self.renderFrame = renderFrame
    }

    /// The decision, made here and nowhere else (see the type's documentation for the order).
    /// Headers and decoded scenes both describe themselves as `FrameFacts`, so a job decides once
    /// from whichever it has.
    public static func decide(_ facts: FrameFacts, options: FrameOptions = FrameOptions()) -> FrameDecision {
        let (base, reason): (CoordinateSystem, Reason) =
            if let explicit = options.sourceFrame { (explicit, .option) }
            else if let declared = facts.declared { (declared, .fileDeclaration) }
            else { (facts.conventional, .formatDefault) }

        var up = base.upAxis
        var source = UpSource.frame
        var confidence: Double?
        switch options.up {
        case .axis(let axis):
            up = axis
            source = .option
        case .convention:
            break
        case .auto:
            // A frame someone stated outranks any inference.
            guard reason == .formatDefault else { break }
            if let cameras = facts.trainingUp {
                up = cameras
                source = .trainingCameras
            } else if let estimate = facts.estimatedUp, estimate.isConfident {
                up = estimate.axis
                source = .estimate
                confidence = estimate.confidence
            }
        }
        if source == .frame || up == base.upAxis {
            return FrameDecision(sourceFrame: base, reason: reason, up: up, upSource: source, upConfidence: confidence,
                                 flip: options.flip, renderFrame: options.targetFrame)
        }
        if let named = CoordinateSystem.frame(forUp: up, convention: base) {
            return FrameDecision(sourceFrame: named, reason: reason, baseFrame: base, up: up, upSource: source, upConfidence: confidence,
                                 flip: options.flip, renderFrame: options.targetFrame)
        }
        let rotation = UpAlignment.correction(forUp: up, convention: base, renderFrame: options.targetFrame)
        return FrameDecision(sourceFrame: base, reason: reason, baseFrame: base, up: up, upSource: source, upConfidence: confidence,
                             upRotation: rotation, flip: options.flip, renderFrame: options.targetFrame)
    }

    /// Whether `decide` looks at `facts.estimatedUp` at all under `options`: only with `--up
    /// auto`, no frame given or declared, and no training cameras. Otherwise the estimate can
    /// only be reported, and a caller that will not read the report can skip computing it.
    public static func consultsEstimate(_ facts: FrameFacts, options: FrameOptions) -> Bool {
        guard case .auto = options.up else { return false }
        return options.sourceFrame == nil && facts.declared == nil && facts.trainingUp == nil
    }

    /// `decide` for a decoded scene's own facts (no up inference).
    public static func decide(for scene: SplatScene, options: FrameOptions = FrameOptions()) -> FrameDecision {
        decide(scene.frameFacts, options: options)
    }

    /// Whether SPZ safe-orbit hints still mean what they say after this decision: they are
    /// elevations about the stored frame's axes, so any change that moves those axes voids them.
    /// Every user of the hints (orbits, `convert`) asks this.
    public var keepsCameraHints: Bool { conversion.isIdentity && upRotation == nil }

    /// The change of frame between named frames: source → render frame, then the optional half
    /// turn — all of it unless `upRotation` is set (then `apply` rotates in between).
    public var conversion: FrameConversion {
        let base = FrameConversion(from: sourceFrame, to: renderFrame)
        return flip && upRotation == nil ? base.followed(by: .halfTurnX) : base
    }

    /// Converts `scene` in place and records in its warnings when the change mirrors.
    public func apply(to scene: SplatScene, threads: Int? = nil) {
        let c = conversion
        if c.isMirror {
            scene.warnings.append("frame \(sourceFrame.name) → \(renderFrame.name) mirrors the scene (handedness changes)")
        }
        c.apply(to: scene, threads: threads)
        if let upRotation {
            upRotation.apply(to: scene, threads: threads)
            if flip { FrameConversion.halfTurnX.apply(to: scene, threads: threads) }
        }
    }

    /// A camera given in the stored frame (a training camera of `cameras.json`), moved exactly as
    /// `apply(to:)` moves the scene, so it sees the converted scene as it saw the stored one.
    public func apply(to camera: TrainingCamera) -> TrainingCamera {
        var moved = camera.converted(by: conversion)
        if let upRotation {
            moved = moved.rotated(by: upRotation)
            if flip { moved = moved.converted(by: .halfTurnX) }
        }
        return moved
    }

    /// One line for logs and `--verbose`: e.g. "RDF (format default) → RUB, up +Z (estimated, confidence 0.46)".
    public var summary: String {
        let why: String
        switch reason {
        case .option: why = "--source-frame"
        case .fileDeclaration: why = "declared in file"
        case .formatDefault: why = "format default"
        }
        var text = "\(baseFrame.name) (\(why))"
        switch upSource {
        case .frame: break
        case .option: text += " with up \(up.rawValue) (--up)"
        case .trainingCameras: text += " with up \(up.rawValue) (training cameras)"
        case .estimate:
            let c = ((upConfidence ?? 0) * 100).rounded() / 100
            text += " with up \(up.rawValue) (estimated from the splats, confidence \(c))"
        }
        if sourceFrame != baseFrame { text += ", read as \(sourceFrame.name)" }
        if upRotation != nil { text += ", turned so \(up.rawValue) is up" }
        text += " → \(renderFrame.name)"
        return text + (flip ? ", then half turn about X (--flip)" : "")
    }
}
