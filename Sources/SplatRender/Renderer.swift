import Dispatch
import SplatCore
import Synchronization

/// Renders a scene (already in the render frame) from look-at cameras, on the CPU, following the
/// reference rules of `rendering.md`. Create one per scene: the view-independent state
/// (`RenderScene`) is computed once, so a turntable pays only the per-frame work. The scene
/// must not be modified (e.g. frame-converted) after the renderer is created. `render`
/// may be called from several threads at once: each concurrent frame uses its own set of
/// per-frame tables, which the renderer keeps for the next frame (see `releaseScratchMemory`).
public final class Renderer: @unchecked Sendable {
    /// The scene drawn, in the render frame.
    public var scene: SplatScene { renderScene.scene }
    /// The per-scene state computed from it.
    let renderScene: RenderScene
    /// Whether covariances are kept or recomputed in each frame.
    public var preparation: ScenePreparation { renderScene.prepared == nil ? .perFrame : .prepared }
    /// Worker threads used when a frame's settings do not say (nil = all cores).
    public let threads: Int?
    /// Tests only: no narrowing of the tile rectangles, no pre-tests (see `TileCompositor.exhaustive`).
    var exhaustive = false
    /// Tests only: chunks per released group of a last frame (`SceneRelease`).
    var releaseGroupChunks = SceneRelease.chunksPerGroup
    /// Per-frame tables kept between frames; one set per concurrently rendering caller.
    private let scratchPool = Mutex<[FrameScratch]>([])
    /// Frames in flight, and whether `renderLastFrame` has begun (no frame may start after it).
    private let frames = Mutex<(active: Int, released: Bool)>((0, false))

    init(renderScene: RenderScene, threads: Int?) {
        self.renderScene = renderScene
        self.threads = threads
    }

    /// A renderer for `scene`, which must already be in the render frame. `preparation` says
    /// whether per-splat covariances are computed once and kept (the default, for many frames)
    /// or recomputed in each frame (`.perFrame`: 28 bytes a splat less, for one frame); the
    /// images are the same.
    public convenience init(scene: SplatScene, threads: Int? = nil, preparation: ScenePreparation = .prepared) {
        self.init(renderScene: RenderScene(scene: scene, threads: threads, preparation: preparation), threads: threads)
    }

    /// Prepares a renderer under a job's token: the per-scene pass (≈ 0.1 s for millions of
    /// splats) stops when the token is cancelled, with the token's error.
    ///
    /// `unusableSplats` is how many splats the caller knows to be unusable (0 for a scene whose
    /// decoder bounds every value, SH included: `DecodedScene.everySplatUsable`). The per-frame
    /// form then skips its counting pass (16 ms for 3.4 M splats). The images never depend on
    /// it, since every frame drops unusable splats by the same test; only `droppedSplatCount`
    /// does. nil counts.
    public convenience init(scene: SplatScene, threads: Int? = nil, preparation: ScenePreparation = .prepared,
                            unusableSplats: Int? = nil, cancellation: CancellationToken) throws(SplatError) {
        let prepared = RenderScene(scene: scene, threads: threads, cancellation: cancellation, preparation: preparation,
                                   unusableSplats: unusableSplats)
        try cancellation.check("while preparing the scene for rendering")
        self.init(renderScene: prepared, threads: threads)
    }

    private static func linearLight(_ srgb: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(SplatColorSpace.srgbDecoded(srgb.x), SplatColorSpace.srgbDecoded(srgb.y), SplatColorSpace.srgbDecoded(srgb.z))
    }

    /// Splats the renderer will never draw because a value is unusable (zero-length quaternion,
    /// NaN or infinite data, overflowing covariance).
    public var droppedSplatCount: Int { renderScene.droppedCount }

    /// Bytes of per-frame tables the renderer keeps for reuse (they grow to the largest frame).
    public var retainedScratchBytes: Int { scratchPool.withLock { $0.reduce(0) { $0 + $1.bytes } } }

    /// Frees the per-frame tables kept for reuse (the next frame allocates them again).
    public func releaseScratchMemory() { scratchPool.withLock { $0.removeAll() } }

    /// Renders one frame. Throws `.invalidArgument` for an unusable camera or size and
    /// `.tooLarge` when the frame would need more than `settings.maxTilePairs` (tile, splat) pairs.
    /// `cancellation` (default: the job's token bound to this thread, if any) is checked between
    /// chunks of splats while projecting and between tiles while compositing; a cancelled frame
    /// throws the token's error (`timeout`, `interrupted`, `cancelled`).
    public func render(camera: Camera, settings: RenderSettings,
                       cancellation: CancellationToken? = CancellationToken.current) throws(SplatError) -> RenderResult {
        try begin(last: false)
        defer { frames.withLock { $0.active -= 1 } }
        return try renderFrame(camera: camera, settings: settings, cancellation: cancellation, releasing: false)
    }

    /// Renders the scene's last frame, handing the scene's memory back to the system as its
    /// splats are projected: for a job with one view, whose peak would otherwise hold the scene
    /// and the frame's per-splat tables at once (for 3.4 M splats at SH 3 from SPZ: about 330 and
    /// 205 MB). The image is the one `render` gives. Afterwards the scene's columns read as zero
    /// (use it for nothing but its count and metadata) and this renderer refuses every frame;
    /// the caller must own the scene, not share it. Throws `.invalidArgument` while another frame
    /// of this renderer is in flight or after a last frame has begun.
    public func renderLastFrame(camera: Camera, settings: RenderSettings,
                                cancellation: CancellationToken? = CancellationToken.current) throws(SplatError) -> RenderResult {
        try begin(last: true)
        defer { frames.withLock { $0.active -= 1 } }
        return try renderFrame(camera: camera, settings: settings, cancellation: cancellation, releasing: true)
    }

    /// Whether `renderLastFrame` has begun: the scene's memory is being or has been handed back.
    public var hasReleasedScene: Bool { frames.withLock { $0.released } }

    private func begin(last: Bool) throws(SplatError) {
        let refusal = frames.withLock { state -> String? in
            if state.released { return "the renderer's last frame has begun: its scene was handed back" }
            if last && state.active > 0 { return "a last frame cannot start while \(state.active) other frame(s) render" }
            state.active += 1
            if last { state.released = true }
            return nil
        }
        if let refusal { throw SplatError(.invalidArgument, refusal) }
    }

    private func renderFrame(camera: Camera, settings: RenderSettings, cancellation: CancellationToken?,
                             releasing: Bool) throws(SplatError) -> RenderResult {
        let view = try ViewProjection(camera: camera, width: settings.width, height: settings.height)
        if let bg = settings.background, !(bg.x.isFinite && bg.y.isFinite && bg.z.isFinite) {
            throw SplatError(.invalidArgument, "background colour is not finite", field: "background")
        }
        if let degree = settings.maxShDegree, degree < 0 {
            throw SplatError(.invalidArgument, "maximum SH degree \(degree), expected ≥ 0", field: "maxShDegree")
        }
        let scene = renderScene
        guard scene.count < Int(UInt32.max) else {
            throw SplatError(.tooLarge, "\(scene.count) splats, the renderer indexes at most \(UInt32.max - 1)")
        }
        let threads = settings.threads ?? self.threads
        let shDegree = min(scene.shDegree, 3, settings.maxShDegree ?? 3)
        let antialiased = settings.antialiased ?? (scene.scene.model == .antialiased)

        let scratch = scratchPool.withLock { $0.popLast() } ?? FrameScratch()
        defer { scratchPool.withLock { $0.append(scratch) } }
        let t0 = DispatchTime.now().uptimeNanoseconds
        var preprocessor = Preprocessor(scene: scene, view: view, antialiased: antialiased, shDegree: shDegree)
        preprocessor.exhaustive = exhaustive
        // A scene within one release group would only be handed back once every chunk is
        // projected, after the peak it exists to lower; its pages then cost the next job on this
        // process fresh faults instead (40 biker thumbnails: 112–118 k → 47–56 k minor faults, about
        // half the kernel time). The scene stays unusable after a last frame either way.
        if releasing && scene.count > releaseGroupChunks * Preprocessor.chunkSize {
            preprocessor.release = SceneRelease(scene: scene, chunkSize: Preprocessor.chunkSize, chunksPerGroup: releaseGroupChunks)
        }
        let projection = preprocessor.run(threads: threads, scratch: scratch, cancellation: cancellation)
        try cancellation?.check("while projecting splats")
        let t1 = DispatchTime.now().uptimeNanoseconds
        guard projection.pairCount <= settings.maxTilePairs else {
            throw SplatError(.tooLarge, "frame needs \(projection.pairCount) tile pairs, limit \(settings.maxTilePairs)",
                             field: "maxTilePairs")
        }
        let lists = TileBinner.bin(projection, view: view, threads: threads, scratch: scratch, cancellation: cancellation)
        try cancellation?.check("while binning splats into tiles")
        let t2 = DispatchTime.now().uptimeNanoseconds
        // A linear-light scene blends over the background in linear light (the option is sRGB).
        let linear = scene.scene.colorSpace == .linearRec709Display
        var compositor = TileCompositor(view: view, background: linear ? settings.background.map(Self.linearLight) : settings.background)
        compositor.encodesSRGB = linear
        compositor.exhaustive = exhaustive
        let composed = compositor.composite(lists: lists, threads: threads, cancellation: cancellation)
        try cancellation?.check("while compositing tiles")
        let t3 = DispatchTime.now().uptimeNanoseconds

        let image = ImageBuffer(width: view.width, height: view.height, channels: settings.background == nil ? 4 : 3,
                                pixels: composed.pixels)
        let stats = RenderStats(visibleSplats: projection.visibleCount, tilePairs: lists.pairCount,
                                preprocessSeconds: Double(t1 - t0) / 1e9, binSortSeconds: Double(t2 - t1) / 1e9,
                                compositeSeconds: Double(t3 - t2) / 1e9)
        return RenderResult(image: image, coverage: composed.coverage, stats: stats)
    }
}
