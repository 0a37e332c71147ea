import SplatCore

/// A decoded scene with the header facts it came from.
public struct DecodedScene: Sendable {
    public let scene: SplatScene
    public let header: SceneHeader
    /// Set by a decoder that proved every value finite while decoding (`NonFiniteFilter.chunkIsClean`
    /// per chunk), so `SplatFile` need not scan the scene again.
    var valuesProvenFinite = false
    /// Set by a decoder whose encoding bounds every value (SPZ with fixed-point positions:
    /// unit quaternions, log-scales in [−10, 6], byte opacities and colours), so no splat can be
    /// unusable to the renderer, now or after any rotation of the frame. A caller may then
    /// skip the renderer's count of unusable splats (`Renderer`'s `unusableSplats: 0`).
    public internal(set) var everySplatUsable = false

    public init(scene: SplatScene, header: SceneHeader) {
        self.scene = scene
        self.header = header
    }
}
