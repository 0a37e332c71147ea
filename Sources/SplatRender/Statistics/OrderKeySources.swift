/// The per-splat quantities `SceneStatistics` takes percentiles of, as `OrderKeySource`s over
/// the scene's columns (read in place, 16 splats at a time, padding included).

@inline(__always) private func load16(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD16<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
}

@inline(__always) private func isFinite(_ v: SIMD16<Float>) -> SIMDMask<SIMD16<Int32>> { (v - v) .== 0 }

/// The finite values of one column.
struct FiniteValueKeys: OrderKeySource {
    let values: UnsafePointer<Float>

    @inline(__always) func keys(_ i: Int) -> SIMD16<UInt32> {
        let v = load16(values, i)
        return OrderStatistics.keys(v, included: isFinite(v))
    }
}

/// Each splat's largest log-scale, the size of its widest axis; left out when a log-scale is
/// NaN or the largest is +∞ (an infinite size has no place between percentiles; the attribute
/// counts report it). −∞ (a point) takes part.
struct LargestLogScaleKeys: OrderKeySource {
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>

    @inline(__always) func keys(_ i: Int) -> SIMD16<UInt32> {
        let a = load16(x, i), b = load16(y, i), c = load16(z, i)
        var m = a
        m.replace(with: b, where: b .> m)
        m.replace(with: c, where: c .> m)
        let defined = (a .== a) .& (b .== b) .& (c .== c) .& (m .!= .infinity)
        return OrderStatistics.keys(m, included: defined)
    }
}

/// One coordinate of the splat centres that are finite on all three axes and, when
/// `minimumOpacity` is set, at least that opaque.
struct CentreAxisKeys: OrderKeySource {
    let axis: UnsafePointer<Float>
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>
    let alpha: UnsafePointer<Float>
    let minimumOpacity: Float?

    @inline(__always) func keys(_ i: Int) -> SIMD16<UInt32> {
        var included = isFinite(load16(x, i)) .& isFinite(load16(y, i)) .& isFinite(load16(z, i))
        if let minimumOpacity { included = included .& (load16(alpha, i) .>= minimumOpacity) }
        return OrderStatistics.keys(load16(axis, i), included: included)
    }
}

/// The footprint log-area of the splats the overdraw estimate counts (`FootprintKernel`).
struct FootprintKeys: OrderKeySource {
    let alpha: UnsafePointer<Float>
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>

    @inline(__always) func keys(_ i: Int) -> SIMD16<UInt32> {
        @inline(__always) func half(_ j: Int) -> SIMD8<Float> {
            @inline(__always) func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                UnsafeRawPointer(p + j).loadUnaligned(as: SIMD8<Float>.self)
            }
            return FootprintKernel.logArea8(load8(x), load8(y), load8(z))
        }
        let t = SIMD16(lowHalf: half(i), highHalf: half(i + 8))
        let counted = (load16(alpha, i) .>= OverdrawEstimate.minimumOpacity) .& (t .== t)
        return OrderStatistics.keys(t, included: counted)
    }
}
