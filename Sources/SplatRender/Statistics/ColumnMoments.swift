/// Running statistics of one set of Float values, in the form that merges exactly enough to make
/// the result independent of how the values were split: counts, extremes, and the mean with the
/// sum of squared deviations (`m2`), merged with Chan's formula. Partials are always merged in a
/// fixed order (chunk order), so the Double rounding is the same for any thread count.
struct ColumnMoments: Sendable, Equatable {
    var nanCount = 0
    var positiveInfinityCount = 0
    var negativeInfinityCount = 0
    var finiteCount = 0
    var minimum = Float.infinity
    var maximum = -Float.infinity
    var mean = 0.0
    var m2 = 0.0

    /// Values seen, finite or not.
    var count: Int { finiteCount + nanCount + positiveInfinityCount + negativeInfinityCount }

    /// Moments of finite values given as sums about `shift`: `n` values, Σ(v − shift) and
    /// Σ(v − shift)². Shifting by a nearby value keeps `s2 − s1²/n` free of cancellation even
    /// when the mean is far from zero (positions of a scene placed kilometres from its origin).
    init(finiteCount n: Int, shift: Double, sum s1: Double, squares s2: Double, minimum: Float, maximum: Float) {
        finiteCount = n
        guard n > 0 else { return }
        let d = s1 / Double(n)
        mean = shift + d
        m2 = Swift.max(0, s2 - s1 * d)
        self.minimum = minimum
        self.maximum = maximum
    }

    init() {}

    /// Adds one value (Welford's update); used for the few tail values a SIMD loop leaves.
    mutating func add(_ v: Float) {
        if v.isNaN {
            nanCount += 1
        } else if v == .infinity {
            positiveInfinityCount += 1
        } else if v == -.infinity {
            negativeInfinityCount += 1
        } else {
            finiteCount += 1
            minimum = Swift.min(minimum, v)
            maximum = Swift.max(maximum, v)
            let x = Double(v)
            let delta = x - mean
            mean += delta / Double(finiteCount)
            m2 += delta * (x - mean)
        }
    }

    /// Appends `other`'s values (Chan et al.'s pairwise combination).
    mutating func merge(_ other: ColumnMoments) {
        nanCount += other.nanCount
        positiveInfinityCount += other.positiveInfinityCount
        negativeInfinityCount += other.negativeInfinityCount
        guard other.finiteCount > 0 else { return }
        guard finiteCount > 0 else {
            (finiteCount, mean, m2, minimum, maximum) = (other.finiteCount, other.mean, other.m2, other.minimum, other.maximum)
            return
        }
        let na = Double(finiteCount), nb = Double(other.finiteCount), n = na + nb
        let delta = other.mean - mean
        mean += delta * (nb / n)
        m2 += other.m2 + delta * delta * (na * nb / n)
        finiteCount += other.finiteCount
        minimum = Swift.min(minimum, other.minimum)
        maximum = Swift.max(maximum, other.maximum)
    }
}
