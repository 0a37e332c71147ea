import SplatCore
import SplatFormats

/// How to read a scene and bring it into the frame a job works in: the decode limits, an
/// optional forced format, and the caller's side of the frame decision. One value for every
/// command that decodes, the server and the fleet.
public struct LoadOptions: Sendable, Equatable {
    /// Read the input as this format instead of detecting it (needed for `.splat` bytes, which
    /// have no signature, when there is no file name to go by).
    public var format: SplatFormat?
    public var limits: DecodeLimits
    /// Explicit source frame, `--flip`, and the frame to convert into (the render frame).
    public var frame: FrameOptions
    /// Worker threads for decoding and conversion (nil = all cores).
    public var threads: Int?
    /// Training cameras (`--cameras`, in the stored frame): their up outranks the estimate, and
    /// `--view training:K` renders one of them.
    public var cameras: [TrainingCamera] = []
    /// glTF-only choices (`--gltf-scale`).
    public var gltf = GLTFDecoder.Options()
    /// Where SH goes: Float32 (the default, the full model) or, for render jobs, the file's 8-bit
    /// codes where it has them (`SHStorage.quantized`; SceneJob sets it).
    public var shStorage = SHStorage.float32
    /// When to estimate up from the splats (`UpEstimator`, about 6 ms of a small thumbnail).
    public var upEstimate = UpEstimateUse.always

    /// `always`: every report carries the estimate (`up_estimate`), whether or not it decided
    /// anything. `whenItDecides`: only when the frame decision consults it
    /// (`FrameDecision.consultsEstimate`: `--up auto`, no frame given or declared, no training
    /// cameras); otherwise the report's `up_estimate` is null. The decision and the image are the
    /// same either way; callers that never read the report (an image on its own) choose this.
    public enum UpEstimateUse: Sendable, Equatable {
        case always
        case whenItDecides
    }

    public init(format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(), frame: FrameOptions = FrameOptions(),
                threads: Int? = nil) {
        self.format = format
        self.limits = limits
        self.frame = frame
        self.threads = threads
    }
}
