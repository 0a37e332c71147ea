/// Weighted quantiles without sorting millions of values: repeated 2048-bin histograms narrow
/// the search to the bin holding the target cumulative weight, and only a few thousand values
/// are finally sorted. Exact for the definition used by `rendering.md` 11: sort the values, let
/// F_k be the cumulative weight fraction up to value k, and interpolate linearly between the two
/// values whose F bracket the requested fraction (below F_1 the smallest value is returned).
enum WeightedQuantile {
    static let bins = 2048
    static let sortThreshold = 4096

    /// `fraction` in [0, 1]. Values and weights are parallel; weights must be > 0 and finite,
    /// values finite. Returns nil for empty input.
    static func quantile(values: [Float], weights: [Float], fraction: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        var total = 0.0
        for w in weights { total += Double(w) }
        let target = min(max(fraction, 0), 1) * total
        var candidates = values, candidateWeights = weights
        var weightBelow = 0.0
        // The largest value below the candidates and its cumulative weight, for interpolation.
        var predecessor: (value: Double, cumulative: Double)?
        while true {
            var lo = Float.infinity, hi = -Float.infinity
            for v in candidates {
                lo = min(lo, v)
                hi = max(hi, v)
            }
            if candidates.count <= sortThreshold || lo == hi {
                var order = Array(candidates.indices)
                if lo != hi { order.sort { candidates[$0] < candidates[$1] } }
                var cumulative = weightBelow
                var previous = predecessor
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
            @inline(__always) func bin(_ v: Float) -> Int { min(bins - 1, Int((Double(v) - Double(lo)) * scale)) }
            var binWeight = [Double](repeating: 0, count: bins)
            var binMax = [Float](repeating: -.infinity, count: bins)
            for (v, w) in zip(candidates, candidateWeights) {
                let b = bin(v)
                binWeight[b] += Double(w)
                binMax[b] = max(binMax[b], v)
            }
            var chosen = bins - 1
            var cumulative = weightBelow
            for b in 0..<bins where binMax[b] > -.infinity {
                if cumulative + binWeight[b] >= target || b == bins - 1 {
                    chosen = b
                    break
                }
                cumulative += binWeight[b]
                predecessor = (Double(binMax[b]), cumulative)
            }
            weightBelow = cumulative
            var nextValues = [Float](), nextWeights = [Float]()
            for (v, w) in zip(candidates, candidateWeights) where bin(v) == chosen {
                nextValues.append(v)
                nextWeights.append(w)
            }
            candidates = nextValues
            candidateWeights = nextWeights
        }
    }
}
