import SplatCore

/// Per-lane accumulators for 16 Float lanes: extremes in Float, sums about a shift in Double
/// (the lanes are converted before adding, so a chunk's sums carry no Float rounding).
///
/// Two ways to add, freely mixed: `addClean` for vectors known to be finite, with no masks, and
/// `addMasked`, which counts NaN, +∞ and −∞ and keeps them out of the extremes and sums.
/// Callers learn which applies from a cheap first read of each block (`nonFinitePoison`), which
/// also brings the block into cache for the second, heavier read.
struct LaneMoments {
    var minimum = SIMD16<Float>(repeating: .infinity)
    var maximum = SIMD16<Float>(repeating: -.infinity)
    var sumLow = SIMD8<Double>(), sumHigh = SIMD8<Double>()
    var squaresLow = SIMD8<Double>(), squaresHigh = SIMD8<Double>()
    var nan = SIMD16<Int32>(), positiveInfinity = SIMD16<Int32>(), negativeInfinity = SIMD16<Int32>()
    let shift: Float

    init(shift: Float) { self.shift = shift }

    /// `shifted: false` skips subtracting the shift (which must then be 0); callers pass a
    /// literal so the branch folds away.
    @inline(__always) mutating func addClean(_ v: SIMD16<Float>, shifted: Bool = true) {
        // Compare-and-blend: the standard library's pointwiseMin goes lane by lane.
        minimum.replace(with: v, where: v .< minimum)
        maximum.replace(with: v, where: v .> maximum)
        accumulate(v, shifted: shifted)
    }

    @inline(__always) mutating func addMasked(_ v: SIMD16<Float>) {
        let finite = (v - v) .== 0
        nan &+= SIMD16(repeating: 0).replacing(with: 1, where: .!(v .== v))
        positiveInfinity &+= SIMD16(repeating: 0).replacing(with: 1, where: v .== .infinity)
        negativeInfinity &+= SIMD16(repeating: 0).replacing(with: 1, where: v .== -.infinity)
        minimum.replace(with: v, where: finite .& (v .< minimum))
        maximum.replace(with: v, where: finite .& (v .> maximum))
        // A non-finite lane adds the shift itself, i.e. zero to both sums.
        accumulate(v.replacing(with: shift, where: .!finite), shifted: true)
    }

    @inline(__always) private mutating func accumulate(_ v: SIMD16<Float>, shifted: Bool) {
        var low = SIMD8<Double>(v.lowHalf), high = SIMD8<Double>(v.highHalf)
        if shifted {
            let s = SIMD8<Double>(repeating: Double(shift))
            low -= s
            high -= s
        }
        sumLow += low
        sumHigh += high
        squaresLow = squaresLow.addingProduct(low, low)
        squaresHigh = squaresHigh.addingProduct(high, high)
    }

    /// All lanes as one set of moments; `valuesPerLane` is how many vectors were added.
    func moments(valuesPerLane: Int) -> ColumnMoments {
        let bad = Int(nan.wrappedSum()) + Int(positiveInfinity.wrappedSum()) + Int(negativeInfinity.wrappedSum())
        var m = ColumnMoments(finiteCount: 16 * valuesPerLane - bad, shift: Double(shift),
                              sum: sumLow.sum() + sumHigh.sum(), squares: squaresLow.sum() + squaresHigh.sum(),
                              minimum: minimum.min(), maximum: maximum.max())
        m.nanCount = Int(nan.wrappedSum())
        m.positiveInfinityCount = Int(positiveInfinity.wrappedSum())
        m.negativeInfinityCount = Int(negativeInfinity.wrappedSum())
        return m
    }

    /// Lane `lane` alone, as sums about the shift (for regrouping lanes by SH band).
    func lane(_ lane: Int, valuesPerLane: Int) -> (finite: Int, sum: Double, squares: Double, minimum: Float, maximum: Float,
                                                 nan: Int, positiveInfinity: Int, negativeInfinity: Int) {
        let sum = lane < 8 ? sumLow[lane] : sumHigh[lane - 8]
        let squares = lane < 8 ? squaresLow[lane] : squaresHigh[lane - 8]
        let n = Int(nan[lane]), p = Int(positiveInfinity[lane]), q = Int(negativeInfinity[lane])
        return (valuesPerLane - n - p - q, sum, squares, minimum[lane], maximum[lane], n, p, q)
    }
}

/// The streaming kernels of `SceneStatistics`: moments of one scalar column over a range of
/// splats, and of every SH band over the same range.
enum MomentsKernel {
    /// 0 when every value of `p[lo..<hi]` (whole vectors) is finite, else NaN (v − v is NaN
    /// for NaN and ±∞). Its tiny loop keeps many loads in flight, so it streams the block into
    /// cache at close to memory speed for the accumulating read that follows.
    @inline(__always) static func nonFinitePoison(_ p: UnsafePointer<Float>, _ lo: Int, _ hi: Int) -> Float {
        var poison = SIMD16<Float>()
        var i = lo
        while i < hi {
            let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
            poison += v - v
            i += 16
        }
        return poison.sum()
    }

    /// Moments of `p[range]`. `range.lowerBound` need not be aligned; loads are unaligned.
    static func column(_ p: UnsafePointer<Float>, _ range: Range<Int>) -> ColumnMoments {
        let lo = range.lowerBound, hi = range.upperBound
        let vectors = (hi - lo) / 16
        let vectorEnd = lo + 16 * vectors
        var shift: Float = 0
        for i in range where p[i] - p[i] == 0 {
            shift = p[i]
            break
        }
        @inline(__always) func load(_ i: Int) -> SIMD16<Float> { UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self) }
        var lanes = LaneMoments(shift: shift)
        var i = lo
        if nonFinitePoison(p, lo, vectorEnd) == 0 {
            while i < vectorEnd {
                lanes.addClean(load(i))
                i += 16
            }
        } else {
            while i < vectorEnd {
                lanes.addMasked(load(i))
                i += 16
            }
        }
        var result = lanes.moments(valuesPerLane: vectors)
        // The column padding is zero, not data: the last few values go one by one.
        for j in vectorEnd..<hi { result.add(p[j]) }
        return result
    }

    /// SH band of non-DC coefficient `k` (0-based): band b holds k + 1 ∈ [b², (b + 1)²).
    @inline(__always) static func band(ofCoefficient k: Int) -> Int {
        var b = 1
        while (b + 1) * (b + 1) <= k + 1 { b += 1 }
        return b
    }

    /// Moments of each SH band (index 0 is band 1) over the splats in `range`, whose lower bound
    /// must be a multiple of 16.
    ///
    /// A splat's coefficients are `floatsPerSplat` consecutive floats, so 16 splats are exactly
    /// `floatsPerSplat` whole SIMD16 vectors and vector j of every such group puts the same
    /// coefficient in each lane. One accumulator per j therefore collects lanes of fixed bands,
    /// and the lanes are regrouped by band once per chunk. SH values centre on zero, so the sums
    /// need no shift.
    static func shBands(_ sh: UnsafePointer<Float>, floatsPerSplat: Int, degree: Int, _ range: Range<Int>) -> [ColumnMoments] {
        precondition(range.lowerBound % 16 == 0, "SH chunks start on a 16-splat group")
        var bands = [ColumnMoments](repeating: ColumnMoments(), count: degree)
        guard degree > 0 else { return bands }
        let groups = range.count / 16
        let groupEnd = range.lowerBound + 16 * groups
        withUnsafeTemporaryAllocation(of: LaneMoments.self, capacity: floatsPerSplat) { lanes in
            let acc = lanes.baseAddress!
            let start = sh + range.lowerBound * floatsPerSplat
            @inline(__always) func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
                UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
            }
            // Blocks of groups that fit in L1. Each block is read first in address order, where
            // the prefetcher keeps up, for the non-finite check (`nonFinitePoison`), then once per
            // accumulator j, which stays in registers across its vectors of the block. The first
            // read of the next block is interleaved with the accumulating read of this one, one
            // vector each, so memory streams while the arithmetic runs. (Streaming every vector
            // into a memory-resident accumulator made the accumulators' loads and stores the
            // bottleneck; strided reads straight from memory waited on every load.)
            let blockGroups = max(1, 16_384 / (64 * floatsPerSplat))
            let groupFloats = 16 * floatsPerSplat
            for j in 0..<floatsPerSplat { (acc + j).initialize(to: LaneMoments(shift: 0)) }
            var g = 0
            var clean = nonFinitePoison(start, 0, min(groups, blockGroups) * groupFloats) == 0
            while g < groups {
                let blockEnd = min(groups, g + blockGroups)
                var ahead = start + blockEnd * groupFloats
                let aheadEnd = start + min(groups, blockEnd + blockGroups) * groupFloats
                var poison = SIMD16<Float>()
                @inline(__always) func touchAhead() {
                    if ahead < aheadEnd {
                        let v = load(ahead)
                        poison += v - v
                        ahead += 16
                    }
                }
                for j in 0..<floatsPerSplat {
                    var lane = acc[j]
                    var q = start + g * groupFloats + 16 * j
                    if clean {
                        for _ in g..<blockEnd {
                            lane.addClean(load(q), shifted: false)
                            touchAhead()
                            q += groupFloats
                        }
                    } else {
                        for _ in g..<blockEnd {
                            lane.addMasked(load(q))
                            touchAhead()
                            q += groupFloats
                        }
                    }
                    acc[j] = lane
                }
                clean = poison.sum() == 0
                g = blockEnd
            }
            // Lanes in (j, lane) order into their bands, as shifted sums, so the regrouping
            // order (and its rounding) is fixed.
            var finite = [Int](repeating: 0, count: degree)
            var sums = [Double](repeating: 0, count: degree), squares = sums
            var minima = [Float](repeating: .infinity, count: degree), maxima = [Float](repeating: -.infinity, count: degree)
            var nan = finite, positive = finite, negative = finite
            for j in 0..<floatsPerSplat {
                for l in 0..<16 {
                    let b = band(ofCoefficient: ((16 * j + l) % floatsPerSplat) / 3) - 1
                    let lane = acc[j].lane(l, valuesPerLane: groups)
                    finite[b] += lane.finite
                    sums[b] += lane.sum
                    squares[b] += lane.squares
                    minima[b] = min(minima[b], lane.minimum)
                    maxima[b] = max(maxima[b], lane.maximum)
                    nan[b] += lane.nan
                    positive[b] += lane.positiveInfinity
                    negative[b] += lane.negativeInfinity
                }
            }
            for b in 0..<degree {
                bands[b] = ColumnMoments(finiteCount: finite[b], shift: 0, sum: sums[b], squares: squares[b],
                                         minimum: minima[b], maximum: maxima[b])
                bands[b].nanCount = nan[b]
                bands[b].positiveInfinityCount = positive[b]
                bands[b].negativeInfinityCount = negative[b]
            }
        }
        // The last chunk's splats after its whole groups, one value at a time.
        for i in groupEnd..<range.upperBound {
            for k in 0..<(floatsPerSplat / 3) {
                let b = band(ofCoefficient: k) - 1
                for c in 0..<3 { bands[b].add(sh[(i * floatsPerSplat) + 3 * k + c]) }
            }
        }
        return bands
    }
}
