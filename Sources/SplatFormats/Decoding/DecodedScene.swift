import SplatCore

/// A decoded scene with the header facts it came from.
public struct DecodedScene: Sendable {
    public let scene: SplatScene
    public let header: SceneHeader

    public init(scene: SplatScene, header: SceneHeader) {
        self.scene = scene
        self.header = header
    }
}
