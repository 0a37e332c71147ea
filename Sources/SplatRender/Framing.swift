import Foundation

/// A robust bounding sphere of a scene and the orbit distance that fits it in view
/// (`rendering.md` 11); cameras on the orbit look at `center` with `up` at the top of the image.
public struct Framing: Sendable, Equatable, Codable {
    public var center: SIMD3<Double>
    public var radius: Double
    /// Eye-to-centre distance.
    public var distance: Double
    /// Unit up direction of the orbit.
    public var up: SIMD3<Double>

    public init(center: SIMD3<Double>, radius: Double, distance: Double, up: SIMD3<Double>) {
        self.center = center
        self.radius = radius
        self.distance = distance
        self.up = up
    }

    /// The orbit camera at azimuth θ and elevation φ (step 5): with e₁ the +Z axis projected
    /// perpendicular to `up` (+X if up is ±Z) and e₂ = up × e₁,
    /// eye = centre + distance·(cos φ (cos θ e₁ + sin θ e₂) + sin φ up). Azimuth 0 looks from +Z
    /// (for up = +Y); azimuth 90° from +X.
    public func camera(azimuthDegrees: Double, elevationDegrees: Double, fovYDegrees: Double) -> Camera {
        let (e1, e2) = orbitBasis
        let unitUp = Camera.cross(e1, e2)
        let theta = azimuthDegrees * .pi / 180, phi = elevationDegrees * .pi / 180
        let horizontal = cos(theta) * e1 + sin(theta) * e2
        let direction = cos(phi) * horizontal + sin(phi) * unitUp
        return Camera(position: center + distance * direction, target: center, up: up, fovYDegrees: fovYDegrees)
    }

    /// Orthonormal horizontal vectors (e₁, e₂) perpendicular to `up`.
    public var orbitBasis: (SIMD3<Double>, SIMD3<Double>) {
        func normalized(_ v: SIMD3<Double>) -> SIMD3<Double>? {
            let l = (v * v).sum().squareRoot()
            return l > 1e-9 && l.isFinite ? v / l : nil
        }
        let u = normalized(up) ?? SIMD3(0, 1, 0)
        let z = SIMD3<Double>(0, 0, 1), x = SIMD3<Double>(1, 0, 0)
        let e1 = normalized(z - (z * u).sum() * u) ?? normalized(x - (x * u).sum() * u) ?? x
        return (e1, Camera.cross(u, e1))
    }
}
