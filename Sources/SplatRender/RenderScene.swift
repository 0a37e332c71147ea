import SplatCore

/// A scene in the form the renderer draws it, in the render frame: per splat the centre, the six
/// entries of the 3D covariance Σ = Q·diag(s²)·Qᵀ, the opacity used for culling (0 for splats
/// that cannot be rendered) and the colour coefficients (`SplatColours`). Everything view
/// independent is computed once here (`ScenePreparation.prepared`), so a turntable pays only
/// the per-frame work; for a single frame Σ and the opacity may instead be recomputed in the
/// frame from the scene's own columns (`.perFrame`), which saves their 28 bytes a splat. Centres
/// and colours stay in the decoded scene's columns (the scene is kept and must not be modified
/// afterwards).
///
/// Layout: planar columns, each padded to a multiple of 16 floats with zeros (opacity 0 means
/// never visible), so SIMD blocks may run past `count`.
final class RenderScene: @unchecked Sendable {
    let scene: SplatScene
    let count: Int
    /// Padded column length.
    let stride: Int
    /// SH degree of the stored coefficients, Float32 or codes (bands above 3 are never evaluated).
    let shDegree: Int
    /// Splats given opacity 0 because a value is unusable (zero-length quaternion, NaN or
    /// infinite data, overflowing covariance).
    let droppedCount: Int
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>
    /// The scene's scalar columns, from which the per-frame form computes Σ.
    let columns: SplatPreparation.Columns
    let colours: SplatColours
    /// The prepared columns; nil in the per-frame form.
    private let storage: (covariance: AlignedBuffer<Float>, opacity: AlignedBuffer<Float>)?

    /// Σ entries xx, xy, xz, yy, yz, zz as six planar columns of `stride` floats, and the culling
    /// opacity; nil in the per-frame form.
    var prepared: (covariance: UnsafePointer<Float>, opacity: UnsafePointer<Float>)? {
        storage.map { (UnsafePointer($0.covariance.base), UnsafePointer($0.opacity.base)) }
    }

    /// The render form of a decoded scene already converted to the render frame. A cancelled
    /// token stops the per-splat pass between chunks; the result must then be discarded (the
    /// throwing `Renderer.init` does).
    /// `unusableSplats`, when the caller knows it, spares the per-frame form its counting pass.
    init(scene: SplatScene, threads: Int? = nil, cancellation: CancellationToken? = nil,
         preparation: ScenePreparation = .prepared, unusableSplats: Int? = nil) {
        self.scene = scene
        count = scene.count
        stride = Self.stride(count)
        shDegree = scene.quantizedSH?.degree ?? scene.shDegree
        columns = SplatPreparation.Columns(scene)
        (x, y, z) = (UnsafePointer(scene.columnBase(.x)), UnsafePointer(scene.columnBase(.y)), UnsafePointer(scene.columnBase(.z)))
        colours = SplatColours(scene)
        if preparation == .perFrame,
           let dropped = unusableSplats ?? SplatPreparation.countUnusable(scene, threads: threads, cancellation: cancellation) {
            droppedCount = dropped
            storage = nil
            return
        }
        let covariance = AlignedBuffer<Float>(count: 6 * stride), opacity = AlignedBuffer<Float>(count: stride)
        storage = (covariance, opacity)
        droppedCount = SplatPreparation.prepare(scene, covariance: covariance.base, opacity: opacity.base,
                                                stride: stride, threads: threads, cancellation: cancellation)
    }

    static func stride(_ count: Int) -> Int { (count + 15) & ~15 }
}
