import SplatCore
import SplatFormats

/// A decoded scene converted into the job's frame, with the decision that converted it.
public struct LoadedScene: Sendable {
    public let decoded: DecodedScene
    public let decision: FrameDecision

    public var scene: SplatScene { decoded.scene }
    public var header: SceneHeader { decoded.header }
}
