import SplatCore

/// A scene in the form the renderer draws it, in the render frame: per splat the centre, the six
/// entries of the 3D covariance Σ = Q·diag(s²)·Qᵀ, the opacity used for culling (0 for splats
/// that cannot be rendered) and the colour coefficients (`SplatColours`). Everything view
/// independent is computed once here, so a turntable pays only the per-frame work.
///
/// Two ways to get one:
/// - `RenderScene(scene:)` from a decoded `SplatScene`: centres and colours stay in the scene's
///   columns (the scene is kept and must not be modified afterwards), covariances and opacities
///   are computed (28 bytes a splat on top of the scene).
/// - `RenderSceneBuilder`, fed chunk by chunk by a decoder, without a `SplatScene`: 12 bytes of
///   centre, 24 of covariance, 4 of opacity and the colours in their compact stored form — for
///   an SPZ file the file's own bytes, 48 at SH degree 3 — 88 bytes a splat where the decoded
///   scene plus this state take 264. The covariance is kept as six floats rather than the file's
///   7 bytes of scale and rotation because rebuilding it costs every frame about as much as the
///   whole per-frame projection of a splat (measured: `docs-drafts/perf.md`).
///
/// Layout: planar columns, each padded to a multiple of 16 floats with zeros (opacity 0 means
/// never visible), so SIMD blocks may run past `count`.
public final class RenderScene: @unchecked Sendable {
    public let count: Int
    /// Padded column length.
    let stride: Int
    /// SH degree of the stored coefficients (bands above 3 are never evaluated).
    public let shDegree: Int
    public var model: SplatModel
    public var cameraHints: CameraHints?
    /// Non-fatal oddities found while decoding or preparing.
    public var warnings: [String]
    /// The decoded scene this was made from, if it was made from one.
    public let scene: SplatScene?
    /// Splats given opacity 0 because a value is unusable (zero-length quaternion, NaN or
    /// infinite data, overflowing covariance).
    public let droppedCount: Int

    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>
    /// Σ entries xx, xy, xz, yy, yz, zz as six planar columns of `stride` floats.
    let covariance: UnsafePointer<Float>
    let opacity: UnsafePointer<Float>
    let colours: SplatColours
    /// The splats automatic framing looks at.
    let framing: FramingInput
    /// Keeps the storage behind the pointers alive.
    private let owners: [AnyObject]

    init(count: Int, shDegree: Int, model: SplatModel, cameraHints: CameraHints?, warnings: [String], scene: SplatScene?,
         droppedCount: Int, positions: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>),
         covariance: UnsafePointer<Float>, opacity: UnsafePointer<Float>, colours: SplatColours, framing: FramingInput,
         owners: [AnyObject]) {
        self.count = count
        stride = Self.stride(count)
        self.shDegree = shDegree
        self.model = model
        self.cameraHints = cameraHints
        self.warnings = warnings
        self.scene = scene
        self.droppedCount = droppedCount
        (x, y, z) = positions
        self.covariance = covariance
        self.opacity = opacity
        self.colours = colours
        self.framing = framing
        self.owners = owners
    }

    /// The render form of a decoded scene already converted to the render frame. The scene's
    /// columns are used in place. A cancelled token stops the per-splat pass between chunks; the
    /// result must then be discarded (the throwing `Renderer.init` does).
    public convenience init(scene: SplatScene, threads: Int? = nil, cancellation: CancellationToken? = nil) {
        let n = scene.count, stride = Self.stride(n)
        let covariance = AlignedBuffer<Float>(count: 6 * stride)
        let opacity = AlignedBuffer<Float>(count: stride)
        let dropped = SplatPreparation.prepare(scene, covariance: covariance.base, opacity: opacity.base, stride: stride,
                                               threads: threads, cancellation: cancellation)
        let colours = SplatColours(dc: .float(red: scene.columnBase(.dcR), green: scene.columnBase(.dcG),
                                              blue: scene.columnBase(.dcB)),
                                   sh: scene.shDegree > 0 ? .float(scene.sh.baseAddress!, perSplat: scene.shFloatsPerSplat) : .none,
                                   directionRows: nil)
        self.init(count: n, shDegree: scene.shDegree, model: scene.model, cameraHints: scene.cameraHints,
                  warnings: scene.warnings, scene: scene, droppedCount: dropped,
                  positions: (UnsafePointer(scene.columnBase(.x)), UnsafePointer(scene.columnBase(.y)), UnsafePointer(scene.columnBase(.z))),
                  covariance: covariance.base, opacity: opacity.base, colours: colours, framing: .scene(scene),
                  owners: [scene, covariance, opacity])
    }

    /// Bytes this form holds beyond a decoded scene it was made from (for a compact one: all of it).
    public var bytes: Int { owners.reduce(0) { $0 + (($1 as? ByteCounting)?.byteCount ?? 0) } }

    static func stride(_ count: Int) -> Int { (count + 15) & ~15 }
}

/// Storage that can say how large it is.
protocol ByteCounting: AnyObject {
    var byteCount: Int { get }
}

extension AlignedBuffer: ByteCounting {
    var byteCount: Int { count * MemoryLayout<Element>.stride }
}
