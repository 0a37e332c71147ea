/// Counters and stage times of one frame (times are wall-clock seconds).
public struct RenderStats: Sendable, Equatable, Codable {
    /// Splats that survived culling and touch at least one tile.
    public var visibleSplats: Int
    /// (tile, splat) pairs composited.
    public var tilePairs: Int
    /// Projection, culling, covariance and SH.
    public var preprocessSeconds: Double
    /// Depth sort and per-tile lists.
    public var binSortSeconds: Double
    /// Per-tile blending and quantisation.
    public var compositeSeconds: Double

    public init(visibleSplats: Int = 0, tilePairs: Int = 0, preprocessSeconds: Double = 0,
                binSortSeconds: Double = 0, compositeSeconds: Double = 0) {
        self.visibleSplats = visibleSplats
        self.tilePairs = tilePairs
        self.preprocessSeconds = preprocessSeconds
        self.binSortSeconds = binSortSeconds
        self.compositeSeconds = compositeSeconds
    }

    /// Sum of the three stages.
    public var totalSeconds: Double { preprocessSeconds + binSortSeconds + compositeSeconds }
}
