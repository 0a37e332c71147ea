/// What a renderer computes once per scene and what it recomputes in every frame.
public enum ScenePreparation: String, Sendable, Equatable {
    /// Each splat's 3D covariance and culling opacity computed once and kept (28 bytes a splat:
    /// 95 MB for 3.4 M splats): for many frames of one scene (turntables, sheets, animations).
    case prepared
    /// Recomputed from the scene's rotations and scales in each frame, for the blocks that pass
    /// the near-plane and opacity culls, and not held: for a single frame (a thumbnail). The
    /// images are the prepared form's bit for bit (one shared computation of Σ); creating the
    /// renderer then only counts the unusable splats. A scene whose Float32 SH holds a
    /// non-finite value is always prepared (that test needs a pass of its own per frame).
    case perFrame
}
