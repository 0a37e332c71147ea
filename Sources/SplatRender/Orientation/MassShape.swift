import Foundation

/// The shape of the mass (principal axes of the weighted centres' core): a terrain, a floor or a
/// table top is much thinner along up than across (`flatLine`); a person, a bottle or a guitar on
/// its stand is much taller than wide (`tallLine`). Neither says which way is up along the line,
/// and the tall reading is also what a lying train or sofa gives — so it is one vote among several
/// and needs a sign from elsewhere (`MassProfile.taper`).
struct MassShape {
    /// Principal axes, smallest spread first.
    let axes: [SIMD3<Double>]
    /// Standard deviations along `axes`.
    let spreads: SIMD3<Double>
    let covariance: [SIMD3<Double>]

    init(_ sample: OrientationSample) {
        covariance = sample.covariance
        let eigen = SymmetricEigen3(covariance)
        axes = eigen.vectors
        spreads = SIMD3(max(eigen.values.x, 0).squareRoot(), max(eigen.values.y, 0).squareRoot(),
                        max(eigen.values.z, 0).squareRoot())
    }

    var flatLine: SIMD3<Double> { axes[0] }
    var tallLine: SIMD3<Double> { axes[2] }

    /// 1 when the thinnest spread is under 20 % of the middle one, 0 from 60 % up (no flat
    /// subject then); the estimator multiplies it by `outlineGate`.
    var flatness: Double {
        guard spreads.y > 0 else { return 0 }
        return unitClamp((0.6 - spreads.x / spreads.y) / 0.4)
    }

    /// 1 when the middle spread is under 30 % of the largest, 0 from 55 % up.
    var elongation: Double {
        guard spreads.z > 0 else { return 0 }
        return unitClamp((0.55 - spreads.y / spreads.z) / 0.25)
    }

    /// How much a ground reading along `line` may be trusted given the outline of what lies across
    /// it: 1 unless the mass is flattish along `line` (thinner than 80 % of its narrow width, fully
    /// so below 40 %) *and* its outline across is elongated (narrow width under 60 % of the wide
    /// one; trusted fully again from 80 %). A captured ground patch is
    /// roughly as wide as deep — cameras orbit or fly over an area — while a flat subject with an
    /// oblong outline (a sign, a panel, a tin lid, a painting) is as likely to stand as to lie, and
    /// its flat face is no evidence of the ground. Widths are 2nd–98th percentile extents along the
    /// principal directions across `line` (of `OrientationSample.subset`): a trimmed covariance
    /// would round off an oblong's corners.
    func outlineGate(_ sample: OrientationSample, along line: SIMD3<Double>) -> Double {
        let l = line / max((line * line).sum().squareRoot(), 1e-300)
        func times(_ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3((covariance[0] * v).sum(), (covariance[1] * v).sum(), (covariance[2] * v).sum())
        }
        let helper = abs(l.x) < 0.9 ? SIMD3<Double>(1, 0, 0) : SIMD3<Double>(0, 1, 0)
        var a = helper - (helper * l).sum() * l
        a /= (a * a).sum().squareRoot()
        let b = SIMD3(l.y * a.z - l.z * a.y, l.z * a.x - l.x * a.z, l.x * a.y - l.y * a.x)
        // The principal directions of the covariance projected across `line`.
        let caa = (a * times(a)).sum(), cab = (a * times(b)).sum(), cbb = (b * times(b)).sum()
        let angle = 0.5 * atan2(2 * cab, caa - cbb)
        let wide = cos(angle) * a + sin(angle) * b, narrow = -sin(angle) * a + cos(angle) * b
        func extent(_ d: SIMD3<Double>) -> Double {
            let q = sample.subsetQuantiles(along: d, [0.02, 0.98])
            return q[1] - q[0]
        }
        let along = extent(l), w1 = extent(wide), w2 = extent(narrow)
        let largest = max(w1, w2), middle = min(w1, w2)
        guard middle > 0, largest > 0 else { return 0 }
        let flat = unitClamp((0.8 - along / middle) / 0.4)
        let roundness = unitClamp((middle / largest - 0.6) / 0.2)
        return 1 - flat * (1 - roundness)
    }
}
