/// Weighted quantiles without sorting millions of values: a histogram narrows the search to the
/// bin holding the target cumulative weight, repeatedly if needed, and only a few thousand values
/// are finally sorted. Exact for the definition used by `rendering.md` 11: sort the values, let
/// c_k be the cumulative weight up to value k, and interpolate linearly between the two values
/// whose c bracket fraction·total (below c_1 the smallest value is returned).
enum WeightedQuantile {
    static let bins = 4096
    static let sortThreshold = 4096

    /// One quantile of parallel arrays; weights must be > 0 and finite, values finite.
    static func quantile(values: [Float], weights: [Float], fraction: Double) -> Double? {
        values.withUnsafeBufferPointer { v in
            weights.withUnsafeBufferPointer { w in quantiles(values: v, weights: w, fractions: [fraction])[0] }
        }
    }

    /// Several quantiles of the same data, sharing the first (full-size) histogram pass.
    static func quantiles(values: UnsafeBufferPointer<Float>, weights: UnsafeBufferPointer<Float>,
                          fractions: [Double]) -> [Double?] {
        let n = min(values.count, weights.count)
        guard n > 0 else { return fractions.map { _ in nil } }
        var total = 0.0
        var lo = Float.infinity, hi = -Float.infinity
        for i in 0..<n {
            total += Double(weights[i])
            lo = min(lo, values[i])
            hi = max(hi, values[i])
        }
        let targets = fractions.map { min(max($0, 0), 1) * total }
        if n <= sortThreshold || lo == hi {
            let v = Array(values.prefix(n)), w = Array(weights.prefix(n))
            return targets.map { refine(v, w, target: $0, below: 0, predecessor: nil) }
        }
        let scale = Double(bins) / (Double(hi) - Double(lo))
        // Each value's bin is computed once, for the histogram and for every target's gathering
        // (`bins` fits 16 bits); the framing calls this some thirty times a job on 65,536 values.
        return withUnsafeTemporaryAllocation(of: UInt16.self, capacity: n) { binOf in
            var histogram = Histogram(bins: bins)
            histogram.weight.withUnsafeMutableBufferPointer { weight in
                histogram.maximum.withUnsafeMutableBufferPointer { maximum in
                    histogram.count.withUnsafeMutableBufferPointer { count in
                        for i in 0..<n {
                            let v = values[i], b = bin(v, lo, scale)
                            binOf[i] = UInt16(truncatingIfNeeded: b)
                            weight[b] += Double(weights[i])
                            maximum[b] = max(maximum[b], v)
                            count[b] += 1
                        }
                    }
                }
            }
            return targets.map { target in
                let (chosen, below, predecessor) = histogram.locate(target)
                let wanted = UInt16(truncatingIfNeeded: chosen)
                var v = [Float](), w = [Float]()
                v.reserveCapacity(histogram.count[chosen])
                w.reserveCapacity(histogram.count[chosen])
                for i in 0..<n where binOf[i] == wanted {
                    v.append(values[i])
                    w.append(weights[i])
                }
                return refine(v, w, target: target, below: below, predecessor: predecessor)
            }
        }
    }

    @inline(__always)
    private static func bin(_ v: Float, _ lo: Float, _ scale: Double) -> Int {
        min(bins - 1, Int((Double(v) - Double(lo)) * scale))
    }

    /// The quantile among `candidates`, which are preceded in rank by values of total weight
    /// `below`, the largest of them being `predecessor` (its cumulative weight is `below`).
    private static func refine(_ candidates: [Float], _ candidateWeights: [Float], target: Double, below: Double,
                               predecessor: Float?) -> Double {
        var candidates = candidates, candidateWeights = candidateWeights
        var below = below, predecessor = predecessor
        while true {
            var lo = Float.infinity, hi = -Float.infinity
            for v in candidates {
                lo = min(lo, v)
                hi = max(hi, v)
            }
            if candidates.count <= sortThreshold || lo == hi {
                var order = Array(candidates.indices)
                if lo != hi { order.sort { candidates[$0] < candidates[$1] } }
                var cumulative = below
                var previous: (value: Double, cumulative: Double)? = predecessor.map { (Double($0), below) }
                for i in order {
                    let x = Double(candidates[i])
                    let next = cumulative + Double(candidateWeights[i])
                    if next >= target {
                        guard let p = previous, next > p.cumulative else { return x }
                        return p.value + (x - p.value) * (target - p.cumulative) / (next - p.cumulative)
                    }
                    previous = (x, next)
                    cumulative = next
                }
                return Double(candidates[order[order.count - 1]])
            }
            let scale = Double(bins) / (Double(hi) - Double(lo))
            var histogram = Histogram(bins: bins)
            for (v, w) in zip(candidates, candidateWeights) { histogram.add(v, w, bin: bin(v, lo, scale)) }
            let (chosen, belowHere, maximumBefore) = histogram.locate(target - below)
            below += belowHere
            if let maximumBefore { predecessor = maximumBefore }
            var nextValues = [Float](), nextWeights = [Float]()
            for (v, w) in zip(candidates, candidateWeights) where bin(v, lo, scale) == chosen {
                nextValues.append(v)
                nextWeights.append(w)
            }
            candidates = nextValues
            candidateWeights = nextWeights
        }
    }

    /// Weight, count and largest value per bin.
    private struct Histogram {
        var weight: [Double]
        var maximum: [Float]
        var count: [Int]

        init(bins: Int) {
            weight = [Double](repeating: 0, count: bins)
            maximum = [Float](repeating: -.infinity, count: bins)
            count = [Int](repeating: 0, count: bins)
        }

        @inline(__always) mutating func add(_ v: Float, _ w: Float, bin b: Int) {
            weight[b] += Double(w)
            maximum[b] = max(maximum[b], v)
            count[b] += 1
        }

        /// The first non-empty bin where the cumulative weight reaches `target`, the weight of the
        /// bins before it, and the largest value in those bins (nil when there are none).
        func locate(_ target: Double) -> (bin: Int, below: Double, maximumBefore: Float?) {
            var cumulative = 0.0
            var maximumBefore: Float?
            var last = 0, lastBelow = 0.0, lastMaximumBefore: Float?
            for b in 0..<weight.count where count[b] > 0 {
                if cumulative + weight[b] >= target { return (b, cumulative, maximumBefore) }
                last = b
                lastBelow = cumulative
                lastMaximumBefore = maximumBefore
                cumulative += weight[b]
                maximumBefore = maximum[b]
            }
            // Rounding left the target just above the total: the last non-empty bin.
            return (last, lastBelow, lastMaximumBefore)
        }
    }
}
