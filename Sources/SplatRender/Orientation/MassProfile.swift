import Foundation

/// Sign votes from how the mass is distributed along a line already chosen as vertical. Each
/// returns a value in [−1, 1]: positive says +line is up, 0 abstains.
enum MassProfile {
    /// Which end of the mass is its floor. A support is a dense layer — the ground, a tile, a
    /// table top, the soles of a standing figure — so the lowest few percent of the weight lie in
    /// a thin slab, while the top end thins out (heads, flower tops, roofs, tree crowns). Compares
    /// the thickness of the outer 4 % of the weight at each end (2nd–6th and 94th–98th
    /// percentiles, so a few stray splats do not count); no vote until one end is about 1.9 times
    /// as thick as the other, a full vote from about 5.7 times — and none while both ends are thin
    /// (the thicker under 3 % of the height, full from 8 %): a flat roof or lid on top is a layer
    /// as well, and then the ends say nothing. (A heaviest-slab comparison instead loses the
    /// flower beds, whose blooms outweigh their soil.)
    static func bottomLayer(_ sample: OrientationSample, along line: SIMD3<Double>) -> Double {
        let q = sample.quantiles(sample.heights(along: line), [0.02, 0.06, 0.94, 0.98])
        let range = q[3] - q[0]
        guard range > 0, range.isFinite else { return 0 }
        let low = (q[1] - q[0]) / range, high = (q[3] - q[2]) / range
        guard low + high > 0 else { return 0 }
        let contrast = (high - low) / (high + low)
        let vote = unitClamp((abs(contrast) - 0.3) / 0.4) * unitClamp((max(low, high) - 0.03) / 0.05)
        return contrast < 0 ? -vote : vote
    }

    /// Which end of a tall subject is its top: standing things are broad at the base and narrow at
    /// the top (a guitar's body and headstock, a person's stance and head, a bottle's neck). Compares
    /// the horizontal spread of the lowest and highest 15 % of the height range; no vote below a
    /// 1.2:1 ratio, a full vote from about 2.3:1.
    static func taper(_ sample: OrientationSample, along line: SIMD3<Double>) -> Double {
        let heights = sample.heights(along: line)
        let q = sample.quantiles(heights, [0.02, 0.98])
        let range = q[1] - q[0]
        guard range > 0, range.isFinite else { return 0 }
        // Spread across `line`: the points' spread minus the part along it, per slice.
        func width(_ from: Double, _ to: Double) -> Double? {
            let slice = heights.withUnsafeBufferPointer { h in
                sample.moments { k in
                    let t = (Double(h[k]) - q[0]) / range
                    return t >= from && t <= to
                }
            }
            guard slice.total > 0 else { return nil }
            let c = slice.covariance
            let trace = c[0].x + c[1].y + c[2].z
            let along = (line * SIMD3((c[0] * line).sum(), (c[1] * line).sum(), (c[2] * line).sum())).sum()
            return max(trace - along, 0).squareRoot()
        }
        guard let bottom = width(0, 0.15), let top = width(0.85, 1), bottom + top > 0 else { return 0 }
        let contrast = (bottom - top) / (bottom + top)
        return contrast.sign == .minus ? -unitClamp((-contrast - 0.1) / 0.3) : unitClamp((contrast - 0.1) / 0.3)
    }
}
