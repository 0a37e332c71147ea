import Foundation
import SplatCore

extension AutoFramer {
    /// Fraction of the centres the near clearance applies to.
    static let nearFraction = 0.98
    /// Only centres inside the robust box grown by this fraction of its size per side shape the
    /// distance: far floaters and sky shells cannot pull the camera back, while the extremities
    /// just past the 2–98 % box (a head, a headstock, a tile's corners) still count.
    static let fitBoxGrowth = 0.25
    /// Azimuths per elevation whose distances are combined, evenly spaced from the default
    /// azimuth: with 24 (every 15°) the views between them (a 36-frame turntable, a sheet
    /// starting elsewhere) also stayed out of the padding on every corpus object scene.
    static let viewCount = 24
    /// Pixels added to the padding on each side: the renderer's 0.3 px² dilation keeps even a
    /// point-sized splat more than half opaque about 0.65 px from its centre, and a pixel counts
    /// by its centre.
    static let pixelAllowance = 1.5
    /// Below this ratio of the smaller to the larger horizontal variance the subject has a broad
    /// side to face; above it, the orbit starts from `preferredSide`.
    static let anisotropyRatio = 0.6
    /// Every centre is padded by at least this many standard deviations of its widest axis:
    /// splats fainter than ½ make pixels more than half opaque only where several overlap, within
    /// about 1σ of their centres (without this floor the fruit's haze reached the image edge;
    /// with it every object scene of the corpus stays out of the padding).
    static let minimumSigmaPadding = 1.0

    /// How far from its centre, in standard deviations of its widest axis, a splat of opacity
    /// `alpha` alone is more than half opaque: o·exp(−r²/2) > ½ ⇔ r < √(2 ln 2o) (with the
    /// renderer's 0.99 cap, at most 1.17); 0 for o ≤ ½, which no single splat of it can make solid.
    static func solidRadius(alpha: Float) -> Double {
        let o = min(Double(alpha), 0.99)
        return o > 0.5 ? (2 * log(2 * o)).squareRoot() : 0
    }

    /// The padding of one centre: `solidRadius`, at least `minimumSigmaPadding`, times σ.
    static func paddingRadius(alpha: Float, sigma: Float) -> Float {
        Float(max(solidRadius(alpha: alpha), minimumSigmaPadding) * Double(sigma))
    }

    /// The largest, over the orbit views (`viewCount` azimuths at each of `elevationsDegrees`), of
    /// the distance keeping every centre of `sample`, each padded by its `paddingRadius`, inside
    /// the padded frame (half-angle tangents `tanX`, `tanY`), and at least `nearClearance` in
    /// front of `nearFraction` of them. The views run in parallel; each is
    /// computed alone, so the result does not depend on the thread count.
    static func fittingDistance(_ sample: FramingSample, framing: Framing, elevationsDegrees: [Double],
                                tanX: Double, tanY: Double) -> Double {
        let n = sample.count
        guard n > 0 else { return 0 }
        let views = viewCount * elevationsDegrees.count
        var padded = [Float](repeating: 0, count: n)
        for i in 0..<n { padded[i] = paddingRadius(alpha: sample.opacity[i], sigma: sample.sigma[i]) }
        var perView = [Double](repeating: 0, count: views)
        _ = perView.withUnsafeMutableBufferPointer { out in
            Parallel.forEach(iterations: views) { v in
                let k = v % viewCount, elevation = elevationsDegrees[v / viewCount]
                let azimuth = defaultAzimuthDegrees + 360 * Double(k) / Double(viewCount)
                let camera = framing.camera(azimuthDegrees: azimuth, elevationDegrees: elevation, fovYDegrees: Camera.defaultFovYDegrees)
                guard let rows = camera.rotationRows else { return }
                var nearness = [Float](repeating: 0, count: n)
                let fit = nearness.withUnsafeMutableBufferPointer { near in
                    neededDistance(sample, padded: padded, center: framing.center, rows: rows, tanX: tanX, tanY: tanY,
                                   nearness: near)
                }
                // The quantile lies between the smallest and largest nearness (up to rounding of its
                // interpolation, covered by `nearnessSlack`); when even the largest plus the clearance
                // stays under the fitting distance, the max below is the fitting distance whatever the
                // quantile is, and skipping it changes no bit. For object scenes that is every view:
                // the 24 quantiles were a tenth of a 256² thumbnail's instructions.
                if fit.nearnessBound + nearClearance < Double(fit.needed) {
                    out[v] = Double(fit.needed)
                    return
                }
                let near = sample.weight.withUnsafeBufferPointer { w in
                    nearness.withUnsafeBufferPointer { v in
                        WeightedQuantile.quantiles(values: v, weights: w, fractions: [nearFraction])[0] ?? 0
                    }
                }
                out[v] = max(Double(fit.needed), near + nearClearance)
            }
        }
        return perView.max() ?? 0
    }

    /// One view's fitting distance and a value no weighted quantile of its nearnesses exceeds.
    struct ViewFit {
        var needed: Float
        var nearnessBound: Double
    }

    /// Relative allowance, of the nearnesses' span, for the rounding of a quantile's interpolation
    /// between two neighbouring values (a few units in the last place of a Double; this is far more).
    static let nearnessSlack = 1e-9

    /// One view's pass over the sample: the distance that fits every padded centre into the
    /// frame (the largest over the centres), and each centre's nearness (minus its depth) into
    /// `nearness`. A point p lies at camera depth distance + depth, and is inside the padded frame
    /// when sideways ≤ tanX·(distance + depth) and vertical ≤ tanY·(distance + depth).
    ///
    /// Four centres at a time in Double lanes, each with the scalar form's exact operations in
    /// its order (a dot product is (x·a + y·b) + z·c, as `SIMD3.sum()` adds; Swift's `max(a, b)`
    /// is b ≥ a ? b : a), so the result is the scalar loop's to the bit: 20 instructions a centre
    /// there, and this pass, run for 24 views, was a sixth of a 256² thumbnail's instructions.
    /// Also returns a bound on the nearnesses' quantiles (their largest, plus slack).
    static func neededDistance(_ sample: FramingSample, padded: [Float], center: SIMD3<Double>,
                               rows: (right: SIMD3<Double>, down: SIMD3<Double>, forward: SIMD3<Double>),
                               tanX: Double, tanY: Double, nearness: UnsafeMutableBufferPointer<Float>) -> ViewFit {
        typealias D = SIMD4<Double>
        let n = sample.count
        var needed = -Float.infinity
        var lanes = SIMD4<Float>(repeating: -.infinity)
        var nearLow = SIMD4<Float>(repeating: .infinity), nearHigh = SIMD4<Float>(repeating: -.infinity)
        sample.x.withUnsafeBufferPointer { xs in
            sample.y.withUnsafeBufferPointer { ys in
                sample.z.withUnsafeBufferPointer { zs in
                    padded.withUnsafeBufferPointer { pads in
                        @inline(__always) func load(_ b: UnsafeBufferPointer<Float>, _ i: Int) -> D {
                            D(UnsafeRawPointer(b.baseAddress! + i).loadUnaligned(as: SIMD4<Float>.self))
                        }
                        @inline(__always) func dot(_ x: D, _ y: D, _ z: D, _ a: SIMD3<Double>) -> D {
                            (x * a.x + y * a.y) + z * a.z
                        }
                        @inline(__always) func magnitude(_ v: D) -> D {
                            unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt64>.self) & 0x7FFF_FFFF_FFFF_FFFF, to: D.self)
                        }
                        var i = 0
                        while i + 4 <= n {
                            let px = load(xs, i) - center.x, py = load(ys, i) - center.y, pz = load(zs, i) - center.z
                            let pad = load(pads, i)
                            let depth = dot(px, py, pz, rows.forward)
                            let sideways = magnitude(dot(px, py, pz, rows.right)) + pad
                            let vertical = magnitude(dot(px, py, pz, rows.down)) + pad
                            let across = sideways / tanX, up = vertical / tanY
                            let value = SIMD4<Float>(across.replacing(with: up, where: up .>= across) - depth)
                            lanes = lanes.replacing(with: value, where: value .>= lanes)
                            let near = SIMD4<Float>(-depth)
                            // Compare-and-select: `pointwiseMin`/`Max` keep IEEE NaN rules and came out as
                            // scalar calls, doubling this loop's instructions.
                            nearLow = nearLow.replacing(with: near, where: near .< nearLow)
                            nearHigh = nearHigh.replacing(with: near, where: near .> nearHigh)
                            UnsafeMutableRawPointer(nearness.baseAddress! + i).storeBytes(of: near, as: SIMD4<Float>.self)
                            i += 4
                        }
                        while i < n {
                            let one = centreDistance(sample, i, pad: pads[i], center: center, rows: rows, tanX: tanX, tanY: tanY)
                            needed = max(needed, one.needed)
                            nearness[i] = one.nearness
                            nearLow[0] = min(nearLow[0], one.nearness)
                            nearHigh[0] = max(nearHigh[0], one.nearness)
                            i += 1
                        }
                    }
                }
            }
        }
        for k in 0..<4 { needed = max(needed, lanes[k]) }
        let low = Double(nearLow.min()), high = Double(nearHigh.max())
        return ViewFit(needed: needed, nearnessBound: high + nearnessSlack * (abs(low) + abs(high)))
    }

    /// `neededDistance` for the one centre `i`: the distance that fits it and its nearness. The
    /// lanes' reference, and their tail.
    static func centreDistance(_ sample: FramingSample, _ i: Int, pad padding: Float, center: SIMD3<Double>,
                               rows: (right: SIMD3<Double>, down: SIMD3<Double>, forward: SIMD3<Double>),
                               tanX: Double, tanY: Double) -> (needed: Float, nearness: Float) {
        let p = sample.offset(i, from: center)
        let pad = Double(padding)
        let depth = (p * rows.forward).sum()
        let sideways = abs((p * rows.right).sum()) + pad, vertical = abs((p * rows.down).sum()) + pad
        return (Float(max(sideways / tanX, vertical / tanY) - depth), Float(-depth))
    }
}
