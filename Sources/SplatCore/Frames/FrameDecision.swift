/// Which frame a scene's stored values are taken to be in, why, and the one conversion that
/// brings them into the render frame (RUB). Chosen in the order of `formats.md` 7.3: explicit
/// option, then the file's own declaration (SPZ extension), then the format's convention.
public struct FrameDecision: Sendable, Equatable {
    public enum Reason: String, Sendable, Codable {
        case option
        case fileDeclaration = "file_declaration"
        case formatDefault = "format_default"
    }

    public var sourceFrame: CoordinateSystem
    public var reason: Reason
    /// A half turn about X in the render frame after conversion (`--flip`).
    public var flip: Bool
    public var renderFrame: CoordinateSystem

    public init(sourceFrame: CoordinateSystem, reason: Reason, flip: Bool = false, renderFrame: CoordinateSystem = .render) {
        self.sourceFrame = sourceFrame
        self.reason = reason
        self.flip = flip
        self.renderFrame = renderFrame
    }

    /// The decision, made here and nowhere else: `options.sourceFrame` wins, then the frame the
    /// file declares, then the format's conventional frame. Headers and decoded scenes both
    /// describe themselves as `FrameFacts`, so a job decides once from whichever it has.
    public static func decide(_ facts: FrameFacts, options: FrameOptions = FrameOptions()) -> FrameDecision {
        let (frame, reason): (CoordinateSystem, Reason) =
            if let explicit = options.sourceFrame { (explicit, .option) }
            else if let declared = facts.declared { (declared, .fileDeclaration) }
            else { (facts.conventional, .formatDefault) }
        return FrameDecision(sourceFrame: frame, reason: reason, flip: options.flip, renderFrame: options.targetFrame)
    }

    /// `decide` for a decoded scene's facts.
    public static func decide(for scene: SplatScene, options: FrameOptions = FrameOptions()) -> FrameDecision {
        decide(scene.frameFacts, options: options)
    }

    /// Whether SPZ safe-orbit hints still mean what they say after this decision: they are
    /// elevations about the stored frame's axes, so any conversion that moves those axes voids
    /// them. Every user of the hints (orbits, `convert`) asks this.
    public var keepsCameraHints: Bool { conversion.isIdentity }

    /// The full change of frame: source → render frame, then the optional half turn.
    public var conversion: FrameConversion {
        let base = FrameConversion(from: sourceFrame, to: renderFrame)
        return flip ? base.followed(by: .halfTurnX) : base
    }

    /// Converts `scene` in place and records the decision in its warnings when the change mirrors.
    public func apply(to scene: SplatScene, threads: Int? = nil) {
        let c = conversion
        if c.isMirror {
            scene.warnings.append("frame \(sourceFrame.name) → \(renderFrame.name) mirrors the scene (handedness changes)")
        }
        c.apply(to: scene, threads: threads)
    }

    /// One line for logs and `--verbose`: e.g. "RDF (format default) → RUB, flip no".
    public var summary: String {
        let why: String
        switch reason {
        case .option: why = "--source-frame"
        case .fileDeclaration: why = "declared in file"
        case .formatDefault: why = "format default"
        }
        return "\(sourceFrame.name) (\(why)) → \(renderFrame.name)" + (flip ? ", then half turn about X (--flip)" : "")
    }
}
