import SplatCore
import SplatFormats
import SplatRender

/// A decoded scene converted into the job's frame, with the decision that converted it.
public struct LoadedScene: Sendable {
    public let decoded: DecodedScene
    public let decision: FrameDecision
    /// The up estimated from the splats in the stored frame (reported whether or not it decided).
    public let upEstimate: UpEstimate?

    public var scene: SplatScene { decoded.scene }
    public var header: SceneHeader { decoded.header }
}
