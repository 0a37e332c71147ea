import Foundation

/// Where automatic framing puts the orbit (`rendering.md` 11): cameras on the orbit look at
/// `center` from `distance` away with `up` at the top of the image, azimuths measured from
/// `reference` (or from +Z when it is nil).
public struct Framing: Sendable, Equatable, Codable {
    public var center: SIMD3<Double>
    /// Radius of the bounding sphere of the robust box (reported; the distance no longer derives
    /// from it alone).
    public var radius: Double
    /// Eye-to-centre distance.
    public var distance: Double
    /// Unit up direction of the orbit.
    public var up: SIMD3<Double>
    /// Direction of azimuth 0 (projected perpendicular to `up`): `AutoFramer` sets the scene's
    /// −Z side or the normal of the subject's broad side; nil keeps +Z (see `orbitBasis`).
    public var reference: SIMD3<Double>?

    public init(center: SIMD3<Double>, radius: Double, distance: Double, up: SIMD3<Double>) {
        self.init(center: center, radius: radius, distance: distance, up: up, reference: nil)
    }

    public init(center: SIMD3<Double>, radius: Double, distance: Double, up: SIMD3<Double>,
                reference: SIMD3<Double>?) {
        self.center = center
        self.radius = radius
        self.distance = distance
        self.up = up
        self.reference = reference
    }

    /// The orbit camera at azimuth θ and elevation φ (step 5): with (e₁, e₂) = `orbitBasis`,
    /// eye = centre + distance·(cos φ (cos θ e₁ + sin θ e₂) + sin φ up). Without a `reference`,
    /// azimuth 0 looks from +Z (for up = +Y) and azimuth 90° from +X.
    public func camera(azimuthDegrees: Double, elevationDegrees: Double, fovYDegrees: Double) -> Camera {
        let (e1, e2) = orbitBasis
        let unitUp = Camera.cross(e1, e2)
        let theta = azimuthDegrees * .pi / 180, phi = elevationDegrees * .pi / 180
        let horizontal = cos(theta) * e1 + sin(theta) * e2
        let direction = cos(phi) * horizontal + sin(phi) * unitUp
        return Camera(position: center + distance * direction, target: center, up: up, fovYDegrees: fovYDegrees)
    }

    /// Orthonormal horizontal vectors (e₁, e₂ = up × e₁) perpendicular to `up`: e₁ is `reference`
    /// projected perpendicular to `up` when that is usable, else +Z projected (+X if up is ±Z).
    public var orbitBasis: (SIMD3<Double>, SIMD3<Double>) {
        func normalized(_ v: SIMD3<Double>) -> SIMD3<Double>? {
            let l = (v * v).sum().squareRoot()
            return l > 1e-9 && l.isFinite ? v / l : nil
        }
        let u = normalized(up) ?? Camera.defaultUp
        func horizontal(_ v: SIMD3<Double>) -> SIMD3<Double>? { normalized(v - (v * u).sum() * u) }
        let z = SIMD3<Double>(0, 0, 1), x = SIMD3<Double>(1, 0, 0)
        let e1 = reference.flatMap(horizontal) ?? horizontal(z) ?? horizontal(x) ?? x
        return (e1, Camera.cross(u, e1))
    }
}
