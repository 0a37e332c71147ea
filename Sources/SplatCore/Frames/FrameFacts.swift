/// What a file says about the frame its values are in, gathered by the decoder (or read from the
/// header alone). Facts, not a decision: `FrameDecision.decide` weighs them against the options.
public struct FrameFacts: Sendable, Equatable {
    /// A frame stated inside the file (the SPZ coordinate-system extension, glTF's axes).
    public var declared: CoordinateSystem?
    /// The frame the format is conventionally written in (`formats.md` 7.3).
    public var conventional: CoordinateSystem

    public init(declared: CoordinateSystem? = nil, conventional: CoordinateSystem) {
        self.declared = declared
        self.conventional = conventional
    }
}

extension SplatScene {
    /// The frame facts of the decoded scene.
    public var frameFacts: FrameFacts { FrameFacts(declared: declaredFrame, conventional: conventionalFrame) }
}
