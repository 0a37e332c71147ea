import SplatCore

/// What the up estimator may know besides the splats, all in the scene's stored frame.
public struct UpHints: Sendable, Equatable {
    /// Up vectors of the training cameras (`TrainingCamera.up`, i.e. minus each camera's image-down
    /// axis). Their mean outvotes the geometry unless they disagree among themselves.
    public var cameraUps: [SIMD3<Double>]
    /// The up of the frame in which an SPZ safe-orbit range (`CameraHints`) was authored: its
    /// elevations are measured from that up, so the file's author viewed it that way.
    public var safeOrbitUp: SIMD3<Double>?

    public init(cameraUps: [SIMD3<Double>] = [], safeOrbitUp: SIMD3<Double>? = nil) {
        self.cameraUps = cameraUps
        self.safeOrbitUp = safeOrbitUp
    }

    /// The hints `scene` carries itself: its safe-orbit range, read in the frame the file declares
    /// (else the format's convention), plus the up vectors of `cameras` (already in the stored frame).
    public init(scene: SplatScene, cameras: [TrainingCamera] = []) {
        cameraUps = cameras.map(\.up)
        if scene.cameraHints != nil {
            safeOrbitUp = (scene.declaredFrame ?? scene.conventionalFrame).upAxis.vector
        } else {
            safeOrbitUp = nil
        }
    }

    public var isEmpty: Bool { cameraUps.isEmpty && safeOrbitUp == nil }
}
