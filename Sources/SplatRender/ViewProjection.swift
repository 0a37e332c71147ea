import Foundation
import SplatCore

/// The per-frame camera constants in the form the kernels use: formed in Double from the camera
/// and the image size, then rounded once to Float (as the reference does, `rendering.md` 5.2).
struct ViewProjection: Sendable {
    /// World-to-camera rotation, rows (r, d, f), and translation T = −R·eye.
    var r0: SIMD3<Float>, r1: SIMD3<Float>, r2: SIMD3<Float>
    var translation: SIMD3<Float>
    var fx: Float, fy: Float, cx: Float, cy: Float
    /// Jacobian clamp limits 1.3·tan(fov/2) per axis.
    var limitX: Float, limitY: Float
    var near: Float
    /// Camera centre in world coordinates (for the SH view direction).
    var eye: SIMD3<Float>
    var width: Int, height: Int
    var tilesX: Int, tilesY: Int

    static let tileSize = 16

    /// Validates the camera and size; throws `.invalidArgument` naming the bad field.
    init(camera: Camera, width: Int, height: Int) throws(SplatError) {
        guard (1...RenderSettings.maxDimension).contains(width), (1...RenderSettings.maxDimension).contains(height) else {
            throw SplatError(.invalidArgument, "image size \(width)x\(height), expected 1...\(RenderSettings.maxDimension) per side",
                             field: "size")
        }
        for (name, v) in [("position", camera.position), ("target", camera.target), ("up", camera.up)] {
            guard v.x.isFinite, v.y.isFinite, v.z.isFinite else {
                throw SplatError(.invalidArgument, "camera \(name) is not finite", field: "camera.\(name)")
            }
        }
        guard camera.fovYDegrees.isFinite, camera.fovYDegrees > 0, camera.fovYDegrees < 180 else {
            throw SplatError(.invalidArgument, "vertical FOV \(camera.fovYDegrees)°, expected (0, 180)", field: "camera.fovYDegrees")
        }
        guard camera.near.isFinite, camera.near >= 0 else {
            throw SplatError(.invalidArgument, "near plane \(camera.near), expected a finite value ≥ 0", field: "camera.near")
        }
        guard let rows = camera.rotationRows else {
            throw SplatError(.invalidArgument, "camera target equals its position or the view is parallel to up",
                             field: "camera")
        }
        let eye = camera.position
        let t = -SIMD3((rows.right * eye).sum(), (rows.down * eye).sum(), (rows.forward * eye).sum())
        let f = camera.focalLength(height: height)
        r0 = SIMD3<Float>(rows.right)
        r1 = SIMD3<Float>(rows.down)
        r2 = SIMD3<Float>(rows.forward)
        translation = SIMD3<Float>(t)
        fx = Float(f)
        fy = Float(f)
        cx = Float(Double(width) / 2)
        cy = Float(Double(height) / 2)
        limitX = Float(1.3 * (Double(width) / 2) / f)
        limitY = Float(1.3 * (Double(height) / 2) / f)
        near = Float(camera.near)
        self.eye = SIMD3<Float>(eye)
        self.width = width
        self.height = height
        tilesX = (width + Self.tileSize - 1) / Self.tileSize
        tilesY = (height + Self.tileSize - 1) / Self.tileSize
    }

    var tileCount: Int { tilesX * tilesY }
}
