import Foundation
import SplatCore

/// The ground: among planes through the splat centres (RANSAC), the one with the most weight on
/// it that also has the rest of the mass on one side — a floor with things standing on it, not a
/// slice through the middle of an object. Its normal, turned towards that mass, is its vote for up.
///
/// The ground a capture shows is made of flat splats lying in it, has air just above it (objects
/// start a little way up) and little below it; `support`, `oneSidedness`, `gap` and
/// `normalAgreement` measure exactly those, and the estimator weighs the plane by them — a face
/// of a solid (a wall, a sign, a slab) has its body right behind it, so `gap` is large.
struct GroundPlane {
    /// Hypotheses tried: half through one disc with its own normal (a plane made of discs is found
    /// even when it holds a few percent of the mass, like a flower bed's soil), half through three
    /// centres.
    static let hypotheses = 128
    /// Points each hypothesis is scored on: a fixed-stride subset of the points near the mass.
    static let scoringSubset = 4096
    /// Inlier band half-width as a fraction of the sample's radius (about 1 % of its diameter).
    static let toleranceFraction = 0.02
    /// Points farther than this many radii from the centre never shape the plane.
    static let reach = 1.25

    /// Unit normal pointing from the plane towards the side holding more of the mass.
    let up: SIMD3<Double>
    /// `up · p` for points p on the plane.
    let offset: Double
    /// Fraction of the weight within the inlier band.
    let support: Double
    /// Of the weight clearly off the plane (beyond twice the band), the fraction on the `up` side.
    let oneSidedness: Double
    /// Weight just above the plane (one to three bands up) relative to the weight on it.
    let gap: Double
    /// Fraction of the disc-normal weight within the normal cone around `up`.
    let normalAgreement: Double
    /// Weight of the densest band (as thick as the inlier band) in the top quarter of the mass
    /// above the plane, relative to the weight on the plane: near 1 for a floor under a ceiling or
    /// a slab's two faces, where the other side could as well be the floor.
    let farLayer: Double

    /// Searches `sample`; nil when it has too few points to define a plane.
    static func find(_ sample: OrientationSample, threads: Int? = nil) -> GroundPlane? {
        let tolerance = toleranceFraction * sample.radius
        guard sample.count >= 3, tolerance > 0, tolerance.isFinite else { return nil }
        let reachSquared = reach * reach * sample.radius * sample.radius
        let c = sample.center
        var near: [Int] = []
        near.reserveCapacity(sample.count)
        sample.x.withUnsafeBufferPointer { x in
            sample.y.withUnsafeBufferPointer { y in
                sample.z.withUnsafeBufferPointer { z in
                    for k in 0..<x.count {
                        let dx = Double(x[k]) - c.x, dy = Double(y[k]) - c.y, dz = Double(z[k]) - c.z
                        if dx * dx + dy * dy + dz * dz <= reachSquared { near.append(k) }
                    }
                }
            }
        }
        guard near.count >= 3 else { return nil }
        let nearDiscs = near.filter { sample.normalWeight[$0] > 0 }
        let step = max(1, near.count / scoringSubset)
        let subset = stride(from: 0, to: near.count, by: step).map { near[$0] }
        // The subset as contiguous Float coordinates about the centre (small numbers, so Float is
        // exact enough), which the scoring loop below reads straight through.
        let sx = subset.map { Float(Double(sample.x[$0]) - c.x) }, sy = subset.map { Float(Double(sample.y[$0]) - c.y) }
        let sz = subset.map { Float(Double(sample.z[$0]) - c.z) }, sw = subset.map { sample.weight[$0] }

        // Each hypothesis draws from its own seeded generator, so the chunking of the parallel
        // loop cannot change which planes are tried. They are scored eight at a time.
        var scores = [Double](repeating: -1, count: hypotheses)
        var planes = [SIMD4<Double>](repeating: .zero, count: hypotheses)
        let scale = 1 / tolerance
        _ = scores.withUnsafeMutableBufferPointer { scoreOut in
            planes.withUnsafeMutableBufferPointer { planeOut in
                Parallel.forEachChunk(count: hypotheses / PlaneScores.lanes, chunkSize: 2, threads: threads) { _, groups in
                    for group in groups {
                        var lanes = PlaneScores.Planes()
                        var tried: [Int] = []
                        for lane in 0..<PlaneScores.lanes {
                            let h = group * PlaneScores.lanes + lane
                            var random = SplitMix64(seed: 0x9E3779B97F4A7C15 &* UInt64(h + 1))
                            guard let plane = hypothesis(h, sample, near, nearDiscs, &random) else { continue }
                            let relativeOffset = plane.offset - (plane.normal * c).sum()
                            lanes.set(lane, normal: plane.normal, offset: relativeOffset, scale: scale)
                            planeOut[h] = SIMD4(plane.normal, plane.offset)
                            tried.append(lane)
                        }
                        guard !tried.isEmpty else { continue }
                        let result = PlaneScores(sx, sy, sz, sw, lanes)
                        for lane in tried { scoreOut[group * PlaneScores.lanes + lane] = result.score(lane) }
                    }
                }
            }
        }
        var best = -1
        for h in 0..<hypotheses where scores[h] > (best < 0 ? 0 : scores[best]) { best = h }
        guard best >= 0 else { return nil }
        var normal = SIMD3(planes[best].x, planes[best].y, planes[best].z), offset = planes[best].w
        // Least-squares refinement on the inliers among the near points.
        var isNear = [Bool](repeating: false, count: sample.count)
        for k in near { isNear[k] = true }
        for _ in 0..<3 {
            let heights = sample.heights(along: normal)
            let inliers = heights.withUnsafeBufferPointer { h in
                isNear.withUnsafeBufferPointer { isNear in
                    sample.moments { isNear[$0] && abs(Double(h[$0]) - offset) < tolerance }
                }
            }
            guard inliers.total > 0 else { break }
            var refined = SymmetricEigen3(inliers.covariance).vectors[0]
            if (refined * normal).sum() < 0 { refined = -refined }
            normal = refined
            offset = (normal * inliers.mean).sum()
        }
        let stats = measure(sample, near, normal: normal, offset: offset, tolerance: tolerance)
        let flip = stats.above < stats.below
        let up = flip ? -normal : normal
        let upOffset = flip ? -offset : offset
        return GroundPlane(up: up, offset: upOffset, support: stats.support,
                           oneSidedness: stats.oneSidedness, gap: flip ? stats.gapBelow : stats.gapAbove,
                           normalAgreement: SurfaceNormalMode.fraction(sample, along: up),
                           farLayer: farLayer(sample, near, up: up, offset: upOffset, tolerance: tolerance, onPlane: stats.support))
    }

    /// See `farLayer`: heights above the plane binned by two bands' width between three quarters of
    /// the 99th-percentile height and that height.
    private static func farLayer(_ sample: OrientationSample, _ near: [Int], up: SIMD3<Double>, offset: Double,
                                 tolerance: Double, onPlane: Double) -> Double {
        var heights: [Float] = [], weights: [Float] = []
        var total = 0.0
        let all = sample.heights(along: up)
        for k in near {
            let h = Double(all[k]) - offset
            total += Double(sample.weight[k])
            if h > 2 * tolerance { heights.append(Float(h)); weights.append(sample.weight[k]) }
        }
        guard !heights.isEmpty, onPlane > 0, total > 0 else { return 0 }
        let top = OrientationSample.weightedQuantile(heights, weights, 0.99)
        let from = max(0.75 * top, 2 * tolerance), width = 2 * tolerance
        let bins = max(1, Int(((top - from) / width).rounded(.up)) + 1)
        var band = [Double](repeating: 0, count: bins)
        for (h, w) in zip(heights, weights) where Double(h) >= from {
            band[min(bins - 1, Int((Double(h) - from) / width))] += Double(w)
        }
        return band.max()! / total / onPlane
    }

    /// A candidate plane: through disc `h / 2`'s centre with its normal (even h), or through three
    /// centres (odd h); nil for a degenerate draw.
    private static func hypothesis(_ h: Int, _ sample: OrientationSample, _ near: [Int], _ discs: [Int],
                                   _ random: inout SplitMix64) -> (normal: SIMD3<Double>, offset: Double)? {
        if h % 2 == 0, !discs.isEmpty {
            let k = discs[Int(random.next() % UInt64(discs.count))]
            let n = sample.normal(k)
            return (n, (n * sample.point(k)).sum())
        }
        let a = sample.point(near[Int(random.next() % UInt64(near.count))])
        let b = sample.point(near[Int(random.next() % UInt64(near.count))])
        let c = sample.point(near[Int(random.next() % UInt64(near.count))])
        let u = b - a, v = c - a
        let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        let length = (n * n).sum().squareRoot()
        // Nearly collinear triples give planes the noise decides.
        guard length > 1e-6 * ((u * u).sum() + (v * v).sum()), length.isFinite else { return nil }
        return (n / length, (n / length * a).sum())
    }

    private struct Stats {
        var support = 0.0, above = 0.0, below = 0.0, gapAbove = 0.0, gapBelow = 0.0
        var oneSidedness: Double { max(above, below) / max(above + below, 1e-300) }
    }

    /// Weighted statistics of the points `indices` against the plane (normal, offset).
    private static func measure(_ sample: OrientationSample, _ indices: [Int], normal: SIMD3<Double>, offset: Double,
                                tolerance: Double) -> Stats {
        var s = Stats(), total = 0.0, onPlane = 0.0, justAbove = 0.0, justBelow = 0.0
        sample.x.withUnsafeBufferPointer { x in
            sample.y.withUnsafeBufferPointer { y in
                sample.z.withUnsafeBufferPointer { z in
                    sample.weight.withUnsafeBufferPointer { weight in
                        for k in indices {
                            let w = Double(weight[k])
                            let d = (Double(x[k]) * normal.x + Double(y[k]) * normal.y + Double(z[k]) * normal.z - offset) / tolerance
                            total += w
                            if abs(d) < 1 { onPlane += w }
                            if d > 2 { s.above += w } else if d < -2 { s.below += w }
                            if d > 1 && d < 3 { justAbove += w } else if d < -1 && d > -3 { justBelow += w }
                        }
                    }
                }
            }
        }
        guard total > 0 else { return s }
        s.support = onPlane / total
        s.gapAbove = onPlane > 0 ? justAbove / onPlane : 1
        s.gapBelow = onPlane > 0 ? justBelow / onPlane : 1
        return s
    }
}

/// min(max(x, 0), 1): the soft gates the evidence is weighed with.
@inline(__always) func unitClamp(_ x: Double) -> Double { min(max(x, 0), 1) }
