import SplatCore
/// One rendered frame. Only `Renderer` makes these, so the memberwise initialiser stays internal.
public struct RenderResult: Sendable {
    /// RGB when a background was given, RGBA (straight alpha) otherwise.
    public var image: ImageBuffer
    /// Mean over all pixels of the accumulated alpha 1 − T (0 = empty, 1 = fully covered).
    public var coverage: Double
    public var stats: RenderStats
}
