/// What to render, independent of the camera: image size, background, model overrides and limits.
public struct RenderSettings: Sendable, Equatable {
    /// Image width in pixels, 1...`maxDimension`.
    public var width: Int
    /// Image height in pixels, 1...`maxDimension`.
    public var height: Int
    /// Background colour in the splats' own (display-referred) space. `nil` renders RGBA with
    /// alpha = 1 − T and straight (un-premultiplied) colour S / (1 − T).
    public var background: SIMD3<Float>?
    /// Whether to apply the anti-aliasing opacity compensation (`rendering.md` 5.3); `nil`
    /// follows the scene (`scene.model == .antialiased`).
    public var antialiased: Bool?
    /// Highest SH band to evaluate; `nil` uses every band the scene has up to 3 (degree-4
    /// bands are never evaluated by the renderer).
    public var maxShDegree: Int?
    /// Worker threads; `nil` uses the renderer's default (all cores unless given at init).
    public var threads: Int?
    /// Most (tile, splat) pairs a frame may produce. A frame needing more fails with
    /// `SplatError(.tooLarge)` before the pair arrays are allocated (a fill-rate bomb guard).
    public var maxTilePairs: Int

    /// Default pair budget: 64 Mi pairs (≈ 0.8 GiB of sort and list buffers at most).
    public static let defaultMaxTilePairs = 1 << 26
    /// Largest accepted width or height.
    public static let maxDimension = 16384
    /// Image size used unless a caller says otherwise.
    public static let defaultWidth = 512
    public static let defaultHeight = 512

    public init(width: Int = RenderSettings.defaultWidth, height: Int = RenderSettings.defaultHeight, background: SIMD3<Float>? = nil, antialiased: Bool? = nil,
                maxShDegree: Int? = nil, threads: Int? = nil, maxTilePairs: Int = RenderSettings.defaultMaxTilePairs) {
        self.width = width
        self.height = height
        self.background = background
        self.antialiased = antialiased
        self.maxShDegree = maxShDegree
        self.threads = threads
        self.maxTilePairs = maxTilePairs
    }
}
