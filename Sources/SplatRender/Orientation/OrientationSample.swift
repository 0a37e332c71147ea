import Foundation
import SplatCore

/// What the up estimator looks at: the auto-framer's fixed-stride sample of splat centres (at most
/// 65,536, opacity-weighted, so the cost does not grow with the scene), plus for each point the
/// normal of its splat when the splat is a flat, opaque disc.
///
/// Everything here is defined without reference to the stored axes — a weighted mean, distances
/// from it, the covariance — so rotating the scene rotates the results and nothing else; the
/// framing's per-axis percentile box would not.
struct OrientationSample {
    /// A splat counts as a disc when its smallest standard deviation is below this fraction of its
    /// middle one: its smallest axis is then the surface normal to within a few degrees.
    static let flatRatio: Float = 0.3
    /// Discs fainter than this are mostly floaters and haze; their normals are noise.
    static let discOpacity: Float = 0.3
    /// The central fraction (by weight, nearest the mean) whose covariance is the mass's shape.
    static let coreFraction = 0.96
    /// Fraction of the weight within `radius` of `center`.
    static let radiusFraction = 0.98

    let x: [Float], y: [Float], z: [Float]
    let weight: [Float]
    /// Unit normal of each point's splat (zero when the splat is not a disc).
    let nx: [Float], ny: [Float], nz: [Float]
    /// Weight of each normal: opacity × disc area, capped at the 95th percentile of that product so
    /// a few huge background discs cannot outvote the surfaces (0 when not a disc).
    let normalWeight: [Float]
    /// Indices of the points whose splats are discs, in sample order.
    let discs: [Int]
    /// Weighted mean of the central `coreFraction` of the points.
    let center: SIMD3<Double>
    /// Weighted covariance of that core about `center`.
    let covariance: [SIMD3<Double>]
    /// Distance from `center` within which `radiusFraction` of the weight lies.
    let radius: Double
    /// At most `subsetSize` points at a fixed stride, for extents measured several times per
    /// estimate: percentiles of 8,192 points are within a fraction of a percent of the full ones.
    let subset: [Int]
    static let subsetSize = 8192

    var count: Int { weight.count }

    init(_ scene: SplatScene, threads: Int? = nil) {
        let framing = FramingSample(scene)
        let n = framing.count
        x = framing.x; y = framing.y; z = framing.z; weight = framing.weight
        var nxs = [Float](repeating: 0, count: n), nys = nxs, nzs = nxs, areas = nxs
        let alpha = scene.columnBase(.alpha)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let qw = scene.columnBase(.rotW), qx = scene.columnBase(.rotX), qy = scene.columnBase(.rotY), qz = scene.columnBase(.rotZ)
        _ = framing.index.withUnsafeBufferPointer { index in
            nxs.withUnsafeMutableBufferPointer { nxOut in
                nys.withUnsafeMutableBufferPointer { nyOut in
                    nzs.withUnsafeMutableBufferPointer { nzOut in
                        areas.withUnsafeMutableBufferPointer { areaOut in
                            // Gathering shapes by index is the only part that touches the whole scene's memory.
                            Parallel.forEachChunk(count: n, chunkSize: 8192, threads: threads) { _, range in
                                for k in range {
                                    let i = index[k]
                                    guard alpha[i] >= Self.discOpacity else { continue }
                                    let s = SIMD3(sx[i], sy[i], sz[i])
                                    guard s.x.isFinite, s.y.isFinite, s.z.isFinite else { continue }
                                    let smallest = s.min(), largest = s.max()
                                    let middle = s.x + s.y + s.z - smallest - largest
                                    guard exp(smallest - middle) < Self.flatRatio else { continue }
                                    let axis = s.x == smallest ? 0 : s.y == smallest ? 1 : 2
                                    let normal = Self.rotationColumn(axis, w: qw[i], x: qx[i], y: qy[i], z: qz[i])
                                    guard let normal else { continue }
                                    nxOut[k] = normal.x; nyOut[k] = normal.y; nzOut[k] = normal.z
                                    areaOut[k] = exp(middle + largest) * alpha[i]
                                }
                            }
                        }
                    }
                }
            }
        }
        var discs: [Int] = []
        for k in 0..<n where areas[k] > 0 && areas[k].isFinite { discs.append(k) }
        let cap = Self.percentile(discs.map { areas[$0] }, 0.95)
        var weights = [Float](repeating: 0, count: n)
        for k in discs { weights[k] = min(areas[k], cap) }
        self.discs = discs
        nx = nxs; ny = nys; nz = nzs; normalWeight = weights

        // Centre and shape of the core: mean, then the nearest coreFraction of the weight, again.
        let (xs, ys, zs, ws) = (framing.x, framing.y, framing.z, framing.weight)
        let all = Self.moments(xs, ys, zs, ws) { _ in true }
        var distance = Self.distances(xs, ys, zs, from: all.mean)
        let coreRadius = Float(Self.weightedQuantile(distance, ws, Self.coreFraction))
        let core = distance.withUnsafeBufferPointer { d in Self.moments(xs, ys, zs, ws) { d[$0] <= coreRadius } }
        let middle = core.total > 0 ? core.mean : all.mean
        center = middle
        covariance = core.covariance
        distance = Self.distances(xs, ys, zs, from: middle)
        radius = Self.weightedQuantile(distance, ws, Self.radiusFraction)
        let step = max(1, (n + Self.subsetSize - 1) / Self.subsetSize)
        subset = Array(stride(from: 0, to: n, by: step))
    }

    /// Weighted mean and covariance about it of the points `k` with `include(k)` (two passes, so
    /// the covariance stays accurate far from the origin); zero when they weigh nothing.
    static func moments(_ xs: [Float], _ ys: [Float], _ zs: [Float], _ ws: [Float],
                        where include: (Int) -> Bool) -> (total: Double, mean: SIMD3<Double>, covariance: [SIMD3<Double>]) {
        xs.withUnsafeBufferPointer { x in
            ys.withUnsafeBufferPointer { y in
                zs.withUnsafeBufferPointer { z in
                    ws.withUnsafeBufferPointer { w in
                        var total = 0.0, mx = 0.0, my = 0.0, mz = 0.0
                        for k in 0..<w.count where include(k) {
                            let wk = Double(w[k])
                            total += wk; mx += wk * Double(x[k]); my += wk * Double(y[k]); mz += wk * Double(z[k])
                        }
                        guard total > 0 else { return (0, .zero, [.zero, .zero, .zero]) }
                        mx /= total; my /= total; mz /= total
                        var cxx = 0.0, cxy = 0.0, cxz = 0.0, cyy = 0.0, cyz = 0.0, czz = 0.0
                        for k in 0..<w.count where include(k) {
                            let wk = Double(w[k]), dx = Double(x[k]) - mx, dy = Double(y[k]) - my, dz = Double(z[k]) - mz
                            cxx += wk * dx * dx; cxy += wk * dx * dy; cxz += wk * dx * dz
                            cyy += wk * dy * dy; cyz += wk * dy * dz; czz += wk * dz * dz
                        }
                        let c = [SIMD3(cxx, cxy, cxz), SIMD3(cxy, cyy, cyz), SIMD3(cxz, cyz, czz)].map { $0 / total }
                        return (total, SIMD3(mx, my, mz), c)
                    }
                }
            }
        }
    }

    private static func distances(_ xs: [Float], _ ys: [Float], _ zs: [Float], from c: SIMD3<Double>) -> [Float] {
        var out = [Float](repeating: 0, count: xs.count)
        xs.withUnsafeBufferPointer { x in
            ys.withUnsafeBufferPointer { y in
                zs.withUnsafeBufferPointer { z in
                    out.withUnsafeMutableBufferPointer { d in
                        for k in 0..<d.count {
                            let dx = Double(x[k]) - c.x, dy = Double(y[k]) - c.y, dz = Double(z[k]) - c.z
                            d[k] = Float((dx * dx + dy * dy + dz * dz).squareRoot())
                        }
                    }
                }
            }
        }
        return out
    }

    /// Point `k`.
    @inline(__always) func point(_ k: Int) -> SIMD3<Double> { SIMD3(Double(x[k]), Double(y[k]), Double(z[k])) }
    /// Normal of point `k` (zero when it is not a disc).
    @inline(__always) func normal(_ k: Int) -> SIMD3<Double> { SIMD3(Double(nx[k]), Double(ny[k]), Double(nz[k])) }

    /// Heights of every point along `direction` (a unit vector).
    func heights(along direction: SIMD3<Double>) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        x.withUnsafeBufferPointer { x in
            y.withUnsafeBufferPointer { y in
                z.withUnsafeBufferPointer { z in
                    out.withUnsafeMutableBufferPointer { h in
                        for k in 0..<h.count {
                            h[k] = Float(Double(x[k]) * direction.x + Double(y[k]) * direction.y + Double(z[k]) * direction.z)
                        }
                    }
                }
            }
        }
        return out
    }

    /// Weighted moments of the points `k` with `include(k)` (see `moments`).
    func moments(where include: (Int) -> Bool) -> (total: Double, mean: SIMD3<Double>, covariance: [SIMD3<Double>]) {
        Self.moments(x, y, z, weight, where: include)
    }

    /// Weighted quantiles of `values` (one per point) with the points' weights.
    func quantiles(_ values: [Float], _ fractions: [Double]) -> [Double] {
        Self.weightedQuantiles(values, weight, fractions)
    }

    /// Weighted quantiles of the heights of the `subset` points along `direction`.
    func subsetQuantiles(along direction: SIMD3<Double>, _ fractions: [Double]) -> [Double] {
        let values = subset.map { Float((point($0) * direction).sum()) }
        return Self.weightedQuantiles(values, subset.map { weight[$0] }, fractions)
    }

    /// Column `axis` of the rotation matrix of (w, x, y, z), or nil for a degenerate quaternion.
    static func rotationColumn(_ axis: Int, w: Float, x: Float, y: Float, z: Float) -> SIMD3<Float>? {
        let q = SIMD4(w, x, y, z)
        let norm2 = (q * q).sum()
        guard norm2 > 0, norm2.isFinite else { return nil }
        let s = 2 / norm2
        switch axis {
        case 0: return SIMD3(1 - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y))
        case 1: return SIMD3(s * (x * y - w * z), 1 - s * (x * x + z * z), s * (y * z + w * x))
        default: return SIMD3(s * (x * z + w * y), s * (y * z - w * x), 1 - s * (x * x + y * y))
        }
    }

    static func weightedQuantile(_ values: [Float], _ weights: [Float], _ fraction: Double) -> Double {
        weightedQuantiles(values, weights, [fraction])[0]
    }

    static func weightedQuantiles(_ values: [Float], _ weights: [Float], _ fractions: [Double]) -> [Double] {
        values.withUnsafeBufferPointer { v in
            weights.withUnsafeBufferPointer { w in
                WeightedQuantile.quantiles(values: v, weights: w, fractions: fractions).map { $0 ?? 0 }
            }
        }
    }

    static func percentile(_ values: [Float], _ fraction: Double) -> Float {
        guard !values.isEmpty else { return 0 }
        return Float(weightedQuantile(values, [Float](repeating: 1, count: values.count), fraction))
    }
}
