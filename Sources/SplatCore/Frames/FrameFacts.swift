/// What is known about the frame a scene's values are in, gathered before the decision: what the
/// file says (a declared frame, the format's convention) and what was inferred or supplied about
/// up (training cameras, the estimate from the splats). Facts, not a decision:
/// `FrameDecision.decide` weighs them against the options.
public struct FrameFacts: Sendable, Equatable {
    /// A frame stated inside the file (the SPZ coordinate-system extension, glTF's axes).
    public var declared: CoordinateSystem?
    /// The frame the format is conventionally written in (`formats.md` 7.3).
    public var conventional: CoordinateSystem
    /// The stored axis the training cameras (`--cameras`) hold up, when cameras were given.
    public var trainingUp: SignedAxis?
    /// The up estimated from the splats, when it was computed.
    public var estimatedUp: EstimatedUp?

    /// An up estimate as the decision needs it: the stored axis and how sure the estimator is.
    public struct EstimatedUp: Sendable, Equatable {
        public var axis: SignedAxis
        public var confidence: Double
        /// The estimator's threshold: below it the estimate is reported, not used.
        public var threshold: Double

        public init(axis: SignedAxis, confidence: Double, threshold: Double) {
            self.axis = axis
            self.confidence = confidence
            self.threshold = threshold
        }

        public var isConfident: Bool { confidence >= threshold }
    }

    public init(declared: CoordinateSystem? = nil, conventional: CoordinateSystem, trainingUp: SignedAxis? = nil,
                estimatedUp: EstimatedUp? = nil) {
        self.declared = declared
        self.conventional = conventional
        self.trainingUp = trainingUp
        self.estimatedUp = estimatedUp
    }
}

extension SplatScene {
    /// The frame facts the decoded scene states (no up inference).
    public var frameFacts: FrameFacts { FrameFacts(declared: declaredFrame, conventional: conventionalFrame) }
}
