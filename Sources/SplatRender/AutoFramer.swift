import Foundation
import SplatCore

/// Automatic framing for thumbnails and turntables (`rendering.md` 11).
///
/// Works on a fixed-stride sample of at most 65,536 splat centres weighted by opacity
/// (`FramingSample`), so a multi-million-splat scene frames in a few milliseconds:
/// 1. Centre: the midpoint of the robust box (per-axis weighted 2nd/98th percentiles), which
///    ignores floaters and sky shells.
/// 2. Orientation (`Framing.reference`, azimuth 0): the −Z side of the render frame, turned for
///    a subject clearly longer one way than the other (a guitar, a standing person, a logo) to
///    the normal of its broad side (horizontal PCA), so the default three-quarter view sees its
///    face rather than its edge. −Z rather than +Z: on every corpus scene with a recognisable
///    front (biker, guitar, the fruit label, the PlayCanvas logo, playbot, the flower tiles)
///    that front faces −Z once converted to the render frame, and +Z showed its back.
/// 3. Distance: for every orbit view (`viewCount` azimuths at each elevation asked for) the
///    distance at which the subject stays out of the `padding` band along the image's edges,
///    with perspective (nearer points need more room); the largest over the views, so every
///    frame of a turntable (and every row of a contact sheet) fits with one distance. The
///    subject is the centres inside the robust box grown by `fitBoxGrowth`, each padded by the
///    radius within which its splat alone is more than half opaque (`solidRadius`).
public enum AutoFramer {
    /// Default orbit angles: a three-quarter view from slightly above.
    public static let defaultAzimuthDegrees: Double = 35
    public static let defaultElevationDegrees: Double = 20
    /// Default empty band along each edge, as a fraction of the frame's width (left and right)
    /// and height (top and bottom): `--padding`.
    public static let defaultPadding = 0.05
    /// Largest padding accepted: 0.4 per side leaves the subject a fifth of the frame.
    public static let maximumPadding = 0.4
    /// Splats fainter than this do not shape the framing (unless too few others remain).
    public static let minimumOpacity: Float = 0.1
    /// Below this many opaque-enough splats, every splat is used.
    public static let minimumSplats = 16
    /// Lower and upper weighted percentiles of the box, per axis.
    public static let lowerFraction = 0.02
    public static let upperFraction = 0.98
    /// The camera keeps at least this much depth in front of all but the nearest 2 % (by weight)
    /// of the splat centres, so the reference's 0.2 near plane cannot clip a tiny scene: the
    /// camera is pulled back (the scene then looks smaller than the padding asks) rather than
    /// the near plane being changed, which keeps renders comparable with the reference.
    public static let nearClearance = 0.25

    /// Which splats the framing looks at.
    public enum Extent: String, Sendable, Equatable {
        /// The opaque splats, the box trimmed to its 2–98 % percentiles, and only the centres
        /// inside that box grown by `fitBoxGrowth` fitted: floaters and sky shells far from the
        /// subject do not shrink it.
        case robust
        /// Every splat with any opacity, the box and the fit over all of them (no percentile
        /// trimming): the second try when the robust framing showed (almost) nothing.
        case allSplats = "all_splats"
    }

    /// Frames `scene` for a `width`×`height` image with vertical FOV `fovYDegrees`, for cameras
    /// at `elevationDegrees` and each of `alsoElevationsDegrees` (any azimuth): the returned
    /// framing's `distance` fits every orbit view at those elevations with `padding` (fraction
    /// of the frame per side, 0…`maximumPadding`) left empty along the edges, and its
    /// `reference` orients the orbit (see the type's notes). `margin`, the older form, asks the
    /// subject to fill 1/`margin` of the frame (padding (1 − 1/margin)/2) and wins when given.
    /// `extent` chooses which splats count. A scene whose centres coincide (or an empty one)
    /// falls back to the bounding sphere of its largest splat.
    public static func frame(_ scene: SplatScene, width: Int, height: Int, fovYDegrees: Double,
                             up: SIMD3<Double> = Camera.defaultUp, margin: Double? = nil,
                             elevationDegrees: Double = AutoFramer.defaultElevationDegrees,
                             padding: Double = AutoFramer.defaultPadding, alsoElevationsDegrees: [Double] = [],
                             extent: Extent = .robust) -> Framing {
        let asked = margin.map { $0.isFinite && $0 >= 1 ? (1 - 1 / $0) / 2 : defaultPadding } ?? padding
        let elevationsDegrees = [elevationDegrees] + alsoElevationsDegrees
        let upLength = (up * up).sum().squareRoot()
        let unitUp = upLength > 0 && upLength.isFinite ? up / upLength : Camera.defaultUp
        let fovY = min(max(fovYDegrees.isFinite ? fovYDegrees : 50, 1e-3), 179.9) * .pi / 180
        let aspect = Double(max(width, 1)) / Double(max(height, 1))
        let fovX = 2 * atan(aspect * tan(fovY / 2))
        let padding = asked.isFinite ? min(max(asked, 0), maximumPadding) : defaultPadding
        // The padded frame's half-angle tangents: the padding and `pixelAllowance` off each side.
        let tanX = tan(fovX / 2) * max(1 - 2 * padding - 2 * pixelAllowance / Double(max(width, 1)), 0.05)
        let tanY = tan(fovY / 2) * max(1 - 2 * padding - 2 * pixelAllowance / Double(max(height, 1)), 0.05)
        let margin = 1 / (1 - 2 * padding)

        let sample = FramingSample(scene, everySplat: extent == .allSplats)
        let fractions = extent == .robust ? (lowerFraction, upperFraction) : (0, 1)
        let (lower, upper) = sample.box(lower: fractions.0, upper: fractions.1) ?? (.zero, .zero)
        let center = (lower + upper) / 2
        let size = upper - lower
        var radius = 0.5 * (size * size).sum().squareRoot()
        // The distance at which the box's bounding sphere fits the narrower FOV: the fallback.
        let sphereDistance = { (r: Double) in max(margin * r / sin(min(fovX, fovY) / 2), r + nearClearance) }
        guard radius > 1e-6, radius.isFinite else {
            radius = fallbackRadius(scene)
            return Framing(center: center.isFinite ? center : .zero, radius: radius,
                           distance: sphereDistance(radius), up: unitUp, reference: preferredSide(up: unitUp))
        }

        let side = preferredSide(up: unitUp)
        let reference = broadSideNormal(sample, center: center, lower: lower, upper: upper, up: unitUp, side: side) ?? side
        // Distance 1 only orients the view rows of `fittingDistance`; the fitted one replaces it.
        var framing = Framing(center: center, radius: radius, distance: 1, up: unitUp, reference: reference)
        let elevations = elevationsDegrees.map { $0.isFinite ? min(max($0, -89), 89) : defaultElevationDegrees }
        let fitted = extent == .robust ? sample.restricted(to: lower - fitBoxGrowth * size, upper + fitBoxGrowth * size) : sample
        let fit = fittingDistance(fitted, framing: framing, elevationsDegrees: elevations, tanX: tanX, tanY: tanY)
        framing.distance = fit.isFinite && fit > 0 ? fit : sphereDistance(radius)
        return framing
    }

    /// Per-axis weighted 2nd/98th percentile box of the splat centres (of the fixed-stride sample
    /// `frame` uses, i.e. of every splat up to 65,536 splats).
    public static func robustBox(_ scene: SplatScene) -> (SIMD3<Double>, SIMD3<Double>) {
        FramingSample(scene).box(lower: lowerFraction, upper: upperFraction) ?? (.zero, .zero)
    }

    /// The horizontal direction the default views come from when the subject has no broad side:
    /// −Z projected perpendicular to `up` (+X when up is ±Z).
    static func preferredSide(up: SIMD3<Double>) -> SIMD3<Double> {
        Framing(center: .zero, radius: 1, distance: 1, up: up, reference: SIMD3(0, 0, -1)).orbitBasis.0
    }

    /// The unit horizontal normal of the subject's broad side, or nil when its footprint is
    /// roughly round (or degenerate). Signed towards `side` (towards +X when perpendicular to
    /// it, then towards up × side), so the choice does not depend on the eigen solver.
    ///
    /// The spread compared is the horizontal covariance of the centres inside the robust box
    /// conditional on height (the Schur complement Σ_hh − Σ_hv Σ_vv⁻¹ Σ_vh), i.e. after removing
    /// what a lean explains: a guitar leaning back on its stand has a round footprint, yet its
    /// body is flat across the direction it leans in. Its smaller axis is the horizontal view
    /// direction that sees the largest projected area of the covariance ellipsoid.
    static func broadSideNormal(_ sample: FramingSample, center: SIMD3<Double>, lower: SIMD3<Double>,
                                upper: SIMD3<Double>, up: SIMD3<Double>, side: SIMD3<Double>) -> SIMD3<Double>? {
        let (a, b) = Framing(center: center, radius: 1, distance: 1, up: up, reference: side).orbitBasis
        var total = 0.0, mean = SIMD3<Double>.zero
        var saa = 0.0, sab = 0.0, sbb = 0.0, sav = 0.0, sbv = 0.0, svv = 0.0
        // Two passes (mean, then spread) keep the covariance accurate far from the origin.
        for pass in 0..<2 {
            for i in 0..<sample.count {
                let p = SIMD3(Double(sample.x[i]), Double(sample.y[i]), Double(sample.z[i]))
                guard all(p .>= lower), all(p .<= upper) else { continue }
                let w = Double(sample.weight[i])
                let q = p - center
                let local = SIMD3((q * a).sum(), (q * b).sum(), (q * up).sum())
                if pass == 0 {
                    total += w
                    mean += w * local
                } else {
                    let d = local - mean
                    saa += w * d.x * d.x; sab += w * d.x * d.y; sbb += w * d.y * d.y
                    sav += w * d.x * d.z; sbv += w * d.y * d.z; svv += w * d.z * d.z
                }
            }
            guard total > 0 else { return nil }
            if pass == 0 { mean /= total }
        }
        if svv > 1e-12 * (saa + sbb + svv) {
            saa -= sav * sav / svv
            sab -= sav * sbv / svv
            sbb -= sbv * sbv / svv
        }
        let half = (saa + sbb) / 2
        let spread = ((saa - sbb) * (saa - sbb) / 4 + sab * sab).squareRoot()
        let larger = half + spread, smaller = max(half - spread, 0)
        guard larger > 0, larger.isFinite, smaller / larger < anisotropyRatio else { return nil }
        // Eigenvector of `smaller`: of the two equivalent forms, the better conditioned one.
        let first = SIMD2(sab, smaller - saa), second = SIMD2(smaller - sbb, sab)
        var v = (first * first).sum() >= (second * second).sum() ? first : second
        let length = (v * v).sum().squareRoot()
        guard length > 0, length.isFinite else { return nil }
        v /= length
        var normal = v.x * a + v.y * b
        // a = side, so v.x is the normal's component along it; when the broad side is parallel
        // to `side` (|v.x| ≈ 0) the sign goes to +X, then to b.
        let x = SIMD3<Double>(1, 0, 0)
        let tieBreak = abs(v.x) > 1e-6 ? v.x : abs((normal * x).sum()) > 1e-6 ? (normal * x).sum() : v.y
        if tieBreak < 0 { normal = -normal }
        return normal
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

private extension SIMD3 where Scalar == Double {
    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
