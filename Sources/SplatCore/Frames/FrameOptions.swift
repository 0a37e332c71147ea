/// What a caller asks of the frame decision: an explicit source frame (`--source-frame`), the
/// half turn `--flip`, and the frame to convert into (the render frame unless converting files).
public struct FrameOptions: Sendable, Equatable {
    /// The frame the stored values are in; overrides the file's declaration and the convention.
    public var sourceFrame: CoordinateSystem?
    /// A half turn about X after the conversion.
    public var flip: Bool
    public var targetFrame: CoordinateSystem

    public init(sourceFrame: CoordinateSystem? = nil, flip: Bool = false, targetFrame: CoordinateSystem = .render) {
        self.sourceFrame = sourceFrame
        self.flip = flip
        self.targetFrame = targetFrame
    }
}
