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
        let xs = scene.columnBase(.x), ys = scene.columnBase(.y), zs = scene.columnBase(.z)
        let alpha = scene.columnBase(.alpha)
        @inline(__always) func usable(_ i: Int) -> Bool { (xs[i] - xs[i] == 0) && (ys[i] - ys[i] == 0) && (zs[i] - zs[i] == 0) }
        // Which splats shape the box, from strictest to loosest rule, and with what weight.
        enum Rule { case opaque, anyOpacity, uniform }
        @inline(__always) func weight(_ i: Int, _ rule: Rule) -> Float {
            guard usable(i) else { return 0 }
            let a = alpha[i]
            switch rule {
            case .opaque: return a >= minimumOpacity && a.isFinite ? a : 0
            case .anyOpacity: return a > 0 && a.isFinite ? a : 0
            case .uniform: return 1
            }
        }
        var rule = Rule.opaque
        var selected = 0
        for candidate in [Rule.opaque, .anyOpacity, .uniform] {
            rule = candidate
            selected = 0
            for i in 0..<n where weight(i, rule) > 0 { selected += 1 }
            if selected >= minimumSplats { break }
        }
        guard selected > 0 else { return (SIMD3(repeating: 0), SIMD3(repeating: 0)) }
        let weights = UnsafeMutableBufferPointer<Float>.allocate(capacity: selected)
        let values = UnsafeMutableBufferPointer<Float>.allocate(capacity: 3 * selected)
        defer { weights.deallocate(); values.deallocate() }
        var k = 0
        for i in 0..<n {
            let w = weight(i, rule)
            if w > 0 {
                weights[k] = w
                values[k] = xs[i]; values[selected + k] = ys[i]; values[2 * selected + k] = zs[i]
                k += 1
            }
        }
        var bounds = [(Double, Double)](repeating: (0, 0), count: 3)
        bounds.withUnsafeMutableBufferPointer { out in
            Parallel.forEach(iterations: 3) { axis in
                let column = UnsafeBufferPointer(rebasing: values[axis * selected..<(axis + 1) * selected])
                let q = WeightedQuantile.quantiles(values: column, weights: UnsafeBufferPointer(weights),
                                                   fractions: [lowerFraction, upperFraction])
                out[axis] = (q[0] ?? 0, q[1] ?? 0)
            }
        }
        return (SIMD3(bounds[0].0, bounds[1].0, bounds[2].0), SIMD3(bounds[0].1, bounds[1].1, bounds[2].1))
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
