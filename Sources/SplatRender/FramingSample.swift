import Foundation
import SplatCore

/// The splat centres automatic framing looks at: at most `maximumCount` of them, taken at a fixed
/// stride through the scene (so the result depends on the scene only, never on thread count or
/// timing), with their opacities as weights and the standard deviation of their widest axis.
///
/// Which splats count, from the strictest rule to the loosest, the first leaving at least
/// `AutoFramer.minimumSplats` of them: finite centres with opacity ≥ `AutoFramer.minimumOpacity`
/// (weighted by opacity), then any positive opacity, then every finite centre with weight 1.
/// With `everySplat` the first rule is skipped: every splat with any opacity counts
/// (the framing of `AutoFramer.Extent.allSplats`).
struct FramingSample {
    /// Bounds the cost of framing: 65,536 points are plenty for 2–98 % percentiles and keep a
    /// multi-million-splat scene's framing within a few milliseconds.
    static let maximumCount = 65_536

    var x: [Float] = []
    var y: [Float] = []
    var z: [Float] = []
    var weight: [Float] = []
    /// The splat's opacity (the weight is 1 for every splat under the last rule).
    var opacity: [Float] = []
    /// exp(largest log-scale), 0 when that is not finite.
    var sigma: [Float] = []
    /// Index of each point in the scene (the up estimator reads the splats' shapes through it).
    var index: [Int] = []

    var count: Int { weight.count }

    private init() {}

    /// Which splats count, from the strictest rule to the loosest (see the type's comment).
    private enum Rule: CaseIterable { case opaque, anyOpacity, uniform }

    /// Sampled points per parallel piece: the gather is one cache miss per column and point
    /// (the stride is wider than a line), so it is worth both cores on a large scene.
    private static let pieceSize = 4096

    init(_ scene: SplatScene, everySplat: Bool = false) {
        let n = scene.count
        guard n > 0 else { return }
        let step = (n + Self.maximumCount - 1) / Self.maximumCount
        let points = (n + step - 1) / step
        let rules: [Rule] = everySplat ? [.anyOpacity, .uniform] : [.opaque, .anyOpacity, .uniform]
        // One pass gathers the points of the strictest rule and counts those of every rule; a
        // looser rule (a scene nearly all transparent or non-finite) takes a second pass.
        let pieces = (points + Self.pieceSize - 1) / Self.pieceSize
        let gathered = (try? Parallel.map(pieces) { (piece) throws(SplatError) -> (FramingSample, [Int]) in
            let range = piece * Self.pieceSize..<min(points, (piece + 1) * Self.pieceSize)
            var part = FramingSample()
            let counts = part.gather(scene, points: range, step: step, rule: rules[0], counting: rules)
            return (part, counts)
        }) ?? []
        var counts = [Int](repeating: 0, count: rules.count)
        for (_, c) in gathered { for r in rules.indices { counts[r] += c[r] } }
        let chosen = rules.indices.first { counts[$0] >= AutoFramer.minimumSplats } ?? rules.count - 1
        guard counts[chosen] > 0 else { return }
        if chosen == 0 {
            reserve(counts[0])
            for (part, _) in gathered { append(part) }
        } else {
            reserve(counts[chosen])
            _ = gather(scene, points: 0..<points, step: step, rule: rules[chosen], counting: [])
        }
    }

    /// Appends the points `points` (sample positions: splat index = position · `step`) that
    /// `rule` keeps, and returns how many each of `counting` keeps.
    private mutating func gather(_ scene: SplatScene, points: Range<Int>, step: Int, rule: Rule, counting: [Rule]) -> [Int] {
        let xs = scene.columnBase(.x), ys = scene.columnBase(.y), zs = scene.columnBase(.z)
        let alpha = scene.columnBase(.alpha)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        /// A splat's weight under `rule`, from whether its centre is finite and its opacity.
        @inline(__always) func ruleWeight(finite: Bool, _ a: Float, _ rule: Rule) -> Float {
            guard finite else { return 0 }
            switch rule {
            case .opaque: return a >= AutoFramer.minimumOpacity && a.isFinite ? a : 0
            case .anyOpacity: return a > 0 && a.isFinite ? a : 0
            case .uniform: return 1
            }
        }
        // Each rule's count is kept inline, so the loop does not walk `counting` and switch on
        // every rule for every point.
        var opaqueCount = 0, anyOpacityCount = 0, finiteCount = 0
        let countEach = !counting.isEmpty
        // Kept points go to local buffers first and then onto the columns in one copy each:
        // seven appends a point, each checking capacity and uniqueness, were most of the gather.
        let capacity = points.count
        let floats = UnsafeMutablePointer<Float>.allocate(capacity: 6 * max(1, capacity))
        let indices = UnsafeMutablePointer<Int>.allocate(capacity: max(1, capacity))
        defer { floats.deallocate(); indices.deallocate() }
        let (kx, ky, kz) = (floats, floats + capacity, floats + 2 * capacity)
        let (kw, ko, ks) = (floats + 3 * capacity, floats + 4 * capacity, floats + 5 * capacity)
        var kept = 0
        for p in points {
            let i = p * step
            // x − x is 0 exactly when x is finite.
            let finite = xs[i] - xs[i] == 0 && ys[i] - ys[i] == 0 && zs[i] - zs[i] == 0, a = alpha[i]
            if countEach {
                opaqueCount += ruleWeight(finite: finite, a, .opaque) > 0 ? 1 : 0
                anyOpacityCount += ruleWeight(finite: finite, a, .anyOpacity) > 0 ? 1 : 0
                finiteCount += finite ? 1 : 0
            }
            let w = ruleWeight(finite: finite, a, rule)
            guard w > 0 else { continue }
            kx[kept] = xs[i]; ky[kept] = ys[i]; kz[kept] = zs[i]
            kw[kept] = w
            ko[kept] = alpha[i].isFinite ? alpha[i] : 0
            indices[kept] = i
            let s = exp(max(sx[i], sy[i], sz[i]))
            ks[kept] = s.isFinite ? s : 0
            kept += 1
        }
        x.append(contentsOf: UnsafeBufferPointer(start: kx, count: kept))
        y.append(contentsOf: UnsafeBufferPointer(start: ky, count: kept))
        z.append(contentsOf: UnsafeBufferPointer(start: kz, count: kept))
        weight.append(contentsOf: UnsafeBufferPointer(start: kw, count: kept))
        opacity.append(contentsOf: UnsafeBufferPointer(start: ko, count: kept))
        index.append(contentsOf: UnsafeBufferPointer(start: indices, count: kept))
        sigma.append(contentsOf: UnsafeBufferPointer(start: ks, count: kept))
        return counting.map { rule in
            switch rule {
            case .opaque: opaqueCount
            case .anyOpacity: anyOpacityCount
            case .uniform: finiteCount
            }
        }
    }

    private mutating func reserve(_ count: Int) {
        x.reserveCapacity(count); y.reserveCapacity(count); z.reserveCapacity(count)
        weight.reserveCapacity(count); sigma.reserveCapacity(count); index.reserveCapacity(count)
        opacity.reserveCapacity(count)
    }

    private mutating func append(_ part: FramingSample) {
        x += part.x; y += part.y; z += part.z
        weight += part.weight; opacity += part.opacity; sigma += part.sigma; index += part.index
    }

    /// Per-axis weighted `lower`/`upper` percentile box of the centres; nil when empty.
    func box(lower: Double, upper: Double) -> (SIMD3<Double>, SIMD3<Double>)? {
        guard count > 0 else { return nil }
        var bounds: [(Double, Double)] = []
        weight.withUnsafeBufferPointer { w in
            for column in [x, y, z] {
                column.withUnsafeBufferPointer { v in
                    let q = WeightedQuantile.quantiles(values: v, weights: w, fractions: [lower, upper])
                    bounds.append((q[0] ?? 0, q[1] ?? 0))
                }
            }
        }
        return (SIMD3(bounds[0].0, bounds[1].0, bounds[2].0), SIMD3(bounds[0].1, bounds[1].1, bounds[2].1))
    }

    /// The points whose centres lie inside the box `lower`…`upper`.
    func restricted(to lower: SIMD3<Double>, _ upper: SIMD3<Double>) -> FramingSample {
        var kept = FramingSample()
        kept.x.reserveCapacity(count); kept.y.reserveCapacity(count); kept.z.reserveCapacity(count)
        kept.weight.reserveCapacity(count); kept.sigma.reserveCapacity(count); kept.index.reserveCapacity(count)
        kept.opacity.reserveCapacity(count)
        for i in 0..<count {
            let p = SIMD3(Double(x[i]), Double(y[i]), Double(z[i]))
            guard all(p .>= lower), all(p .<= upper) else { continue }
            kept.x.append(x[i]); kept.y.append(y[i]); kept.z.append(z[i])
            kept.weight.append(weight[i]); kept.sigma.append(sigma[i]); kept.index.append(index[i])
            kept.opacity.append(opacity[i])
        }
        return kept
    }

    /// Centre `i` relative to `origin`.
    @inline(__always) func offset(_ i: Int, from origin: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(Double(x[i]), Double(y[i]), Double(z[i])) - origin
    }
}
