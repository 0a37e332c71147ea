import Foundation
import SplatCore

/// The numerator of the overdraw estimate (`OverdrawEstimate`): the summed 1-σ footprint areas
/// π·sₐ·s_b of the splats the renderer draws at all.
enum FootprintKernel {
    /// log(sₐ·s_b) for the two largest of three log-scales: the largest pairwise sum. A 2DGS
    /// splat's −∞ third scale then never meets the others (no ∞ − ∞), and a pair that still sums
    /// to NaN (+∞ with −∞) is ignored. NaN when a log-scale is NaN.
    @inline(__always)
    static func logArea(_ a: Float, _ b: Float, _ c: Float) -> Float {
        if a.isNaN || b.isNaN || c.isNaN { return .nan }
        var best = -Float.infinity
        for s in [a + b, a + c, b + c] where !s.isNaN { best = max(best, s) }
        return best
    }

    @inline(__always)
    static func logArea8(_ a: SIMD8<Float>, _ b: SIMD8<Float>, _ c: SIMD8<Float>) -> SIMD8<Float> {
        @inline(__always) func defined(_ s: SIMD8<Float>) -> SIMD8<Float> { s.replacing(with: -.infinity, where: .!(s .== s)) }
        // Compare-and-blend: the standard library's pointwiseMax goes lane by lane.
        var best = defined(a + b)
        let ac = defined(a + c), bc = defined(b + c)
        best.replace(with: ac, where: ac .> best)
        best.replace(with: bc, where: bc .> best)
        // `.!(x .== x)` rather than `x .!= x`: the standard library's `.!=` goes lane by lane.
        return best.replacing(with: .nan, where: .!((a .== a) .& (b .== b) .& (c .== c)))
    }

    /// Whether a splat of opacity `o` and footprint log-area `t` counts (NaN fails both tests).
    @inline(__always)
    static func counts(opacity o: Float, logArea t: Float) -> Bool { o >= OverdrawEstimate.minimumOpacity && t == t }

    /// π·e^t in Double, exactly as the reference definition reads (e^−∞ = 0).
    @inline(__always)
    static func area(logArea t: Float) -> Double { Double.pi * Foundation.exp(Double(t)) }

    /// Σ area and the number of splats counted over `range`. `range.lowerBound` must be a
    /// multiple of 8; the vector loop may run into the column padding, whose zero opacity
    /// counts no splat.
    static func sum(alpha: UnsafePointer<Float>, logScaleX: UnsafePointer<Float>, logScaleY: UnsafePointer<Float>,
                    logScaleZ: UnsafePointer<Float>, _ range: Range<Int>) -> (area: Double, splats: Int) {
        @inline(__always) func load(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD8<Float> {
            UnsafeRawPointer(p + i).loadUnaligned(as: SIMD8<Float>.self)
        }
        var total = SIMD8<Double>(), counted = SIMD8<Int32>()
        var i = range.lowerBound
        // e^80 ≈ 5.5e34 keeps π·e^t and the polynomial's scaling far from Float overflow; below
        // −87 FastExp clamps, and such areas (< 1e−37) are zero for any sum they join.
        let fastMaximum: Float = 80, fastMinimum: Float = -87
        while i < range.upperBound {
            let t = logArea8(load(logScaleX, i), load(logScaleY, i), load(logScaleZ, i))
            let drawn = (load(alpha, i) .>= OverdrawEstimate.minimumOpacity) .& (t .== t)
            var area = FastExp.exp8(t.atMost(fastMaximum)) * Float.pi
            area.replace(with: 0, where: t .< fastMinimum)
            area.replace(with: 0, where: .!drawn)
            var wide = SIMD8<Double>(area)
            if any(drawn .& (t .> fastMaximum)) {
                for l in 0..<8 where drawn[l] && t[l] > fastMaximum { wide[l] = Self.area(logArea: t[l]) }
            }
            total += wide
            counted &+= SIMD8(repeating: 0).replacing(with: 1, where: drawn)
            i += 8
        }
        return (total.sum(), Int(counted.wrappedSum()))
    }
}
