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
/// 3. Distance: for each of eight turntable views (every 45° from the default azimuth, at the
///    given elevation) the distance at which a high weighted percentile of the centres, each
///    padded by its splat's size, falls inside the frame shrunk by `margin`, with perspective
///    (nearer points need more room); the largest of the eight, so every frame of a turntable
///    fits with one distance. This fills the frame with tall or thin subjects that the bounding
///    sphere of the box left small.
public enum AutoFramer {
    /// Default orbit angles: a three-quarter view from slightly above.
    public static let defaultAzimuthDegrees: Double = 35
    public static let defaultElevationDegrees: Double = 20
    /// Splats fainter than this do not shape the framing (unless too few others remain).
    public static let minimumOpacity: Float = 0.1
    /// Below this many opaque-enough splats, every splat is used.
    public static let minimumSplats = 16
    /// Lower and upper weighted percentiles of the box, per axis.
    public static let lowerFraction = 0.02
    public static let upperFraction = 0.98
    /// The camera keeps at least this much depth in front of all but the nearest 2 % (by weight)
    /// of the splat centres, so the reference's 0.2 near plane cannot clip a tiny scene: the
    /// camera is pulled back (the scene then looks smaller than `margin` asks) rather than the
    /// near plane being changed, which keeps renders comparable with the reference.
    public static let nearClearance = 0.25

    /// Weighted fraction of the centres kept inside the margin-shrunk frame in every view; the
    /// rest (stray splats, the thinnest extremities) fall into the margin. Measured on the corpus
    /// at 512²: 0.99 leaves the biker and the monkey below 15 % coverage, 0.98 the monkey
    /// (14.9 %); 0.975 keeps both above it.
    static let fitFraction = 0.975
    /// Weighted fraction of the centres kept inside the whole frame (margin included) in every
    /// view. Extremities that carry little weight — a ground tile's corners nearest the camera
    /// (playbot), the corners of the flower tiles — otherwise run off the frame with only
    /// `fitFraction` kept in; 0.995 still cut playbot's tile, 0.998 does not and costs the
    /// subjects above nothing.
    static let wholeFrameFraction = 0.998
    /// Fraction of the centres the near clearance applies to.
    static let nearFraction = 0.98
    /// Each centre is padded by this many standard deviations of its splat's widest axis, so a
    /// scene of a few large splats is framed by their extent, not just their centres.
    static let sigmaPadding = 1.0
    /// Only centres inside the robust box grown by this fraction of its size per side shape the
    /// distance: far floaters and sky shells cannot pull the camera back, while the extremities
    /// just past the 2–98 % box (a head, a headstock, a tile's corners) still count.
    static let fitBoxGrowth = 0.25
    /// Views whose distances are combined: the default azimuth and every 45° from it.
    static let viewCount = 8
    /// Below this ratio of the smaller to the larger horizontal variance the subject has a broad
    /// side to face; above it, the orbit starts from `preferredSide`.
    static let anisotropyRatio = 0.6

    /// Frames `scene` for a `width`×`height` image with vertical FOV `fovYDegrees`, for cameras
    /// at `elevationDegrees` (any azimuth): the returned framing's `distance` fits every
    /// turntable view at that elevation, and its `reference` orients the orbit (see the type's
    /// notes). `margin` > 1 leaves that much room around the subject. A scene whose centres
    /// coincide (or an empty one) falls back to the bounding sphere of its largest splat.
    public static func frame(_ scene: SplatScene, width: Int, height: Int, fovYDegrees: Double,
                             up: SIMD3<Double> = Camera.defaultUp, margin: Double = 1.1,
                             elevationDegrees: Double = AutoFramer.defaultElevationDegrees) -> Framing {
        let upLength = (up * up).sum().squareRoot()
        let unitUp = upLength > 0 && upLength.isFinite ? up / upLength : Camera.defaultUp
        let fovY = min(max(fovYDegrees.isFinite ? fovYDegrees : 50, 1e-3), 179.9) * .pi / 180
        let aspect = Double(max(width, 1)) / Double(max(height, 1))
        let fovX = 2 * atan(aspect * tan(fovY / 2))
        let margin = margin.isFinite && margin > 0 ? margin : 1.1

        let sample = FramingSample(scene)
        let (lower, upper) = sample.box(lower: lowerFraction, upper: upperFraction) ?? (.zero, .zero)
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
        let elevation = elevationDegrees.isFinite ? min(max(elevationDegrees, -89), 89) : defaultElevationDegrees
        let fitted = sample.restricted(to: lower - fitBoxGrowth * size, upper + fitBoxGrowth * size)
        let fit = fittingDistance(fitted, framing: framing, elevationDegrees: elevation,
                                  tanX: tan(fovX / 2), tanY: tan(fovY / 2), margin: margin)
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

    /// The largest, over the turntable views, of the distance keeping `fitFraction` of the
    /// (padded) centres inside the margin-shrunk frame (half-angle tangents ÷ `margin`),
    /// `wholeFrameFraction` of them inside the whole frame (half-angle tangents `tanX`, `tanY`),
    /// and at least `nearClearance` in front of `nearFraction` of them. The views run in
    /// parallel; each is computed alone, so the result does not depend on the thread count.
    static func fittingDistance(_ sample: FramingSample, framing: Framing, elevationDegrees: Double,
                                tanX: Double, tanY: Double, margin: Double) -> Double {
        let n = sample.count
        guard n > 0 else { return 0 }
        var perView = [Double](repeating: 0, count: viewCount)
        perView.withUnsafeMutableBufferPointer { out in
            Parallel.forEach(iterations: viewCount) { k in
                let azimuth = defaultAzimuthDegrees + 360 * Double(k) / Double(viewCount)
                let camera = framing.camera(azimuthDegrees: azimuth, elevationDegrees: elevationDegrees, fovYDegrees: Camera.defaultFovYDegrees)
                guard let rows = camera.rotationRows else { return }
                var needed = [Float](repeating: 0, count: n), whole = [Float](repeating: 0, count: n)
                var nearness = [Float](repeating: 0, count: n)
                for i in 0..<n {
                    let p = sample.offset(i, from: framing.center)
                    let pad = sigmaPadding * Double(sample.sigma[i])
                    let depth = (p * rows.forward).sum()
                    let sideways = abs((p * rows.right).sum()) + pad, vertical = abs((p * rows.down).sum()) + pad
                    // p lies at camera depth distance + depth, and is inside the frame when
                    // sideways ≤ tanX·(distance + depth) and vertical ≤ tanY·(distance + depth).
                    let edge = max(sideways / tanX, vertical / tanY)
                    needed[i] = Float(margin * edge - depth)
                    whole[i] = Float(edge - depth)
                    nearness[i] = Float(-depth)
                }
                func quantile(_ values: [Float], _ fraction: Double) -> Double {
                    sample.weight.withUnsafeBufferPointer { w in
                        values.withUnsafeBufferPointer { v in
                            WeightedQuantile.quantiles(values: v, weights: w, fractions: [fraction])[0] ?? 0
                        }
                    }
                }
                out[k] = max(quantile(needed, fitFraction), quantile(whole, wholeFrameFraction),
                             quantile(nearness, nearFraction) + nearClearance)
            }
        }
        return perView.max() ?? 0
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
