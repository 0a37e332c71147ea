/// The per-splat quantities `SceneStatistics` takes percentiles of, as `OrderKeySource`s over
/// the scene's columns (read in place, 16 splats at a time, padding included).

@inline(__always) private func load16(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD16<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
}

@inline(__always) private func isFinite(_ v: SIMD16<Float>) -> SIMDMask<SIMD16<Int32>> { (v - v) .== 0 }

/// The three coordinates (quantities 0, 1, 2) of the splat centres that are finite on all three
/// axes and, when `minimumOpacity` is set, at least that opaque.
struct CentreKeys: OrderKeySource {
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>
    let alpha: UnsafePointer<Float>
    let minimumOpacity: Float?

    var quantities: Int { 3 }

    @inline(__always) func keys(_ i: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>) {
        let a = load16(x, i), b = load16(y, i), c = load16(z, i)
        var included = isFinite(a) .& isFinite(b) .& isFinite(c)
        if let minimumOpacity { included = included .& (load16(alpha, i) .>= minimumOpacity) }
        keys[0] = OrderKey.keys(a, included: included)
        keys[1] = OrderKey.keys(b, included: included)
        keys[2] = OrderKey.keys(c, included: included)
    }
}

/// Everything `SceneStatistics` ranks in one pass: 0 the finite opacities; 1 each splat's
/// largest log-scale (its widest axis), left out when a log-scale is NaN or the largest is +∞
/// (an infinite size has no place between percentiles; the attribute counts report it), while
/// −∞ (a point) takes part; 2–4 the opaque centres of `CentreKeys`.
struct SplatKeys: OrderKeySource {
    let alpha: UnsafePointer<Float>
    let logScaleX: UnsafePointer<Float>, logScaleY: UnsafePointer<Float>, logScaleZ: UnsafePointer<Float>
    let centres: CentreKeys

    var quantities: Int { 5 }

    @inline(__always) func keys(_ i: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>) {
        let o = load16(alpha, i)
        keys[0] = OrderKey.keys(o, included: isFinite(o))
        let a = load16(logScaleX, i), b = load16(logScaleY, i), c = load16(logScaleZ, i)
        var m = a
        m.replace(with: b, where: b .> m)
        m.replace(with: c, where: c .> m)
        let defined = (a .== a) .& (b .== b) .& (c .== c) .& .!(m .== .infinity)
        keys[1] = OrderKey.keys(m, included: defined)
        centres.keys(i, into: keys + 2)
    }
}

/// The footprint log-area of the splats the overdraw estimate counts (`FootprintKernel`).
struct FootprintKeys: OrderKeySource {
    let alpha: UnsafePointer<Float>
    let x: UnsafePointer<Float>, y: UnsafePointer<Float>, z: UnsafePointer<Float>

    var quantities: Int { 1 }

    @inline(__always) func keys(_ i: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>) {
        @inline(__always) func half(_ j: Int) -> SIMD8<Float> {
            @inline(__always) func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
                UnsafeRawPointer(p + j).loadUnaligned(as: SIMD8<Float>.self)
            }
            return FootprintKernel.logArea8(load8(x), load8(y), load8(z))
        }
        let t = SIMD16(lowHalf: half(i), highHalf: half(i + 8))
        let counted = (load16(alpha, i) .>= OverdrawEstimate.minimumOpacity) .& (t .== t)
        keys[0] = OrderKey.keys(t, included: counted)
    }
}
