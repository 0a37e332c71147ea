import Foundation

/// A pinhole look-at camera in the coordinates of the scene it renders (`rendering.md` 2.2, 3).
///
/// The image's +x is right and +y is down (OpenCV): `up` gives the direction that appears at the
/// top of the image. The field of view is vertical; pixels are square.
public struct Camera: Sendable, Equatable, Codable {
    /// Eye position (the camera centre).
    public var position: SIMD3<Double>
    /// A point on the optical axis.
    public var target: SIMD3<Double>
    /// The world direction that should point up in the image; must not be parallel to the view.
    public var up: SIMD3<Double>
    /// Vertical field of view in degrees, in (0, 180).
    public var fovYDegrees: Double
    /// Splats whose camera-space z is ≤ `near` are dropped (the reference uses 0.2).
    public var near: Double

    /// The reference renderer's near plane.
    public static let defaultNear = 0.2
    /// Vertical field of view used unless a caller says otherwise.
    public static let defaultFovYDegrees: Double = 50
    /// The render frame's up (+Y of RUB): what "up" means when nobody gives one.
    public static let defaultUp = SIMD3<Double>(0, 1, 0)

    public init(position: SIMD3<Double>, target: SIMD3<Double>, up: SIMD3<Double>,
                fovYDegrees: Double = Camera.defaultFovYDegrees, near: Double = Camera.defaultNear) {
        self.position = position
        self.target = target
        self.up = up
        self.fovYDegrees = fovYDegrees
        self.near = near
    }

    /// World-to-camera rotation rows (r, d, f) of the look-at: f = normalize(target − eye),
    /// r = normalize(f × up), d = f × r. `nil` when the view direction is zero or parallel to `up`,
    /// or a value is not finite.
    public var rotationRows: (right: SIMD3<Double>, down: SIMD3<Double>, forward: SIMD3<Double>)? {
        let forwardRaw = target - position
        let fLength = (forwardRaw * forwardRaw).sum().squareRoot()
        guard fLength.isFinite, fLength > 0 else { return nil }
        let f = forwardRaw / fLength
        let rightRaw = Self.cross(f, up)
        let rLength = (rightRaw * rightRaw).sum().squareRoot()
        guard rLength.isFinite, rLength > 1e-12 else { return nil }
        let r = rightRaw / rLength
        let d = Self.cross(f, r)
        return (r, d, f)
    }

    /// Focal length in pixels for an image `height` pixels tall: (H / 2) / tan(fovY / 2).
    public func focalLength(height: Int) -> Double {
        (Double(height) / 2) / tan(fovYDegrees * .pi / 360)
    }

    static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
