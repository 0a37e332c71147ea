import SplatCore

/// A decoded scene with the header facts it came from.
public struct DecodedScene: Sendable {
    public let scene: SplatScene
    public let header: SceneHeader
    /// Set by a decoder that proved every value finite while decoding (`NonFiniteFilter.chunkIsClean`
    /// per chunk), so `SplatFile` need not scan the scene again.
    var valuesProvenFinite = false

    public init(scene: SplatScene, header: SceneHeader) {
        self.scene = scene
        self.header = header
    }
}
