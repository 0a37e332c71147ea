/// What a caller asks of the frame decision: an explicit source frame (`--source-frame`), which
/// way is up (`--up`), the half turn `--flip`, and the frame to convert into (the render frame
/// unless converting files).
public struct FrameOptions: Sendable, Equatable {
    /// `--up`: how up is chosen when the file declares no frame.
    public enum UpPolicy: Sendable, Equatable {
        /// Training cameras, then a confident estimate from the splats, then the convention.
        case auto
        /// The format's convention (or the declared or given frame), nothing inferred.
        case convention
        /// This stored axis is up, whatever the file says (with `sourceFrame`'s other axes).
        case axis(SignedAxis)

        /// `auto`, `convention`, or a signed axis (`+y`, `-Z`, …); nil for anything else.
        public init?(name: String) {
            switch name.lowercased() {
            case "auto": self = .auto
            case "convention": self = .convention
            default:
                guard let axis = SignedAxis(name: name) else { return nil }
                self = .axis(axis)
            }
        }
    }

    /// The default `--up`: a confident estimate that disagrees with the convention replaces it.
    public static let defaultUpPolicy = UpPolicy.auto

    /// The frame the stored values are in; overrides the file's declaration and the convention.
    public var sourceFrame: CoordinateSystem?
    public var up: UpPolicy
    /// A half turn about X after the conversion.
    public var flip: Bool
    public var targetFrame: CoordinateSystem

    public init(sourceFrame: CoordinateSystem? = nil, up: UpPolicy = FrameOptions.defaultUpPolicy, flip: Bool = false,
                targetFrame: CoordinateSystem = .render) {
        self.sourceFrame = sourceFrame
        self.up = up
        self.flip = flip
        self.targetFrame = targetFrame
    }
}
