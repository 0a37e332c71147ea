import Foundation
import SplatCore

/// Automatic framing for thumbnails and turntables (`rendering.md` 11): a robust, opacity-weighted
/// bounding box that ignores floaters and sky shells, its bounding sphere, and the distance at
/// which that sphere fits the narrower field of view.
public enum AutoFramer {
    /// Default orbit angles: a three-quarter view from slightly above.
    public static let defaultAzimuthDegrees: Double = 35
    public static let defaultElevationDegrees: Double = 20
    /// Splats fainter than this do not shape the box (unless too few others remain).
    public static let minimumOpacity: Float = 0.1
    /// Below this many opaque-enough splats, every splat is used.
    public static let minimumSplats = 16
    /// Lower and upper weighted percentiles of the box, per axis.
    public static let lowerFraction = 0.02
    public static let upperFraction = 0.98
    /// The camera never comes closer than this to the framing sphere, so the reference's 0.2 near
    /// plane cannot clip a tiny scene: for R ≲ 0.3 the camera is pulled back (the scene then looks
    /// smaller than `margin` asks) rather than the near plane being changed, which keeps
    /// renders comparable with the reference.
    public static let nearClearance = 0.25

    /// Frames `scene` for a `width`×`height` image with vertical FOV `fovYDegrees`.
    /// distance = margin·R / sin(min(fovX, fovY)/2), at least R + `nearClearance`.
    public static func frame(_ scene: SplatScene, width: Int, height: Int, fovYDegrees: Double,
                             up: SIMD3<Double> = SIMD3(0, 1, 0), margin: Double = 1.1) -> Framing {
        let upLength = (up * up).sum().squareRoot()
        let unitUp = upLength > 0 && upLength.isFinite ? up / upLength : SIMD3(0, 1, 0)
        let (lower, upper) = robustBox(scene)
        let center = (lower + upper) / 2
        let diagonal = upper - lower
        var radius = 0.5 * (diagonal * diagonal).sum().squareRoot()
        if !(radius > 1e-6) || !radius.isFinite { radius = fallbackRadius(scene) }

        let fovY = min(max(fovYDegrees, 1e-3), 179.9) * .pi / 180
        let aspect = Double(max(width, 1)) / Double(max(height, 1))
        let fovX = 2 * atan(aspect * tan(fovY / 2))
        let narrow = min(fovX, fovY)
        let distance = max(margin * radius / sin(narrow / 2), radius + nearClearance)
        return Framing(center: center, radius: radius, distance: distance, up: unitUp)
    }

    /// Per-axis weighted 2nd/98th percentile box of the splat centres.
    public static func robustBox(_ scene: SplatScene) -> (SIMD3<Double>, SIMD3<Double>) {
        let n = scene.count
        let xs = scene.x, ys = scene.y, zs = scene.z, alpha = scene.alpha
        func usable(_ i: Int) -> Bool { (xs[i] - xs[i] == 0) && (ys[i] - ys[i] == 0) && (zs[i] - zs[i] == 0) }
        var selected = [Int]()
        for i in 0..<n where alpha[i] >= minimumOpacity && usable(i) { selected.append(i) }
        var weight: (Int) -> Float = { alpha[$0] }
        if selected.count < minimumSplats {
            selected = (0..<n).filter { usable($0) && alpha[$0] > 0 && alpha[$0].isFinite }
            if selected.count < minimumSplats {
                selected = (0..<n).filter(usable)
                weight = { _ in 1 }
            }
        }
        guard !selected.isEmpty else { return (SIMD3(repeating: 0), SIMD3(repeating: 0)) }
        let weights = selected.map(weight)
        var lower = SIMD3<Double>(), upper = SIMD3<Double>()
        for (axis, column) in [xs, ys, zs].enumerated() {
            let values = selected.map { column[$0] }
            lower[axis] = WeightedQuantile.quantile(values: values, weights: weights, fraction: lowerFraction) ?? 0
            upper[axis] = WeightedQuantile.quantile(values: values, weights: weights, fraction: upperFraction) ?? 0
        }
        return (lower, upper)
    }

    /// Radius for a scene whose centres coincide: three standard deviations of its largest splat,
    /// or 1 if even that is degenerate.
    static func fallbackRadius(_ scene: SplatScene) -> Double {
        var largest = -Double.infinity
        for c in [SplatScene.Column.logScaleX, .logScaleY, .logScaleZ] {
            for v in scene.column(c) where v.isFinite { largest = max(largest, Double(v)) }
        }
        let r = 3 * exp(largest)
        return r.isFinite && r > 1e-6 ? r : 1
    }
}
