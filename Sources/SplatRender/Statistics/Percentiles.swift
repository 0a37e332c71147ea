/// The 1st, 50th and 99th percentiles of a set of values.
///
/// Definition (Hyndman & Fan type 7, the default of NumPy, R and spreadsheets' PERCENTILE.INC):
/// sort the n values x₀ ≤ … ≤ xₙ₋₁, let h = (n − 1)·p, k = ⌊h⌋; the percentile is
/// xₖ + (h − k)·(xₖ₊₁ − xₖ), or xₖ when h = k. Exact: the order statistics are selected from
/// all values (`SampledSelection`), not estimated from a sample or a histogram.
///
/// Only `SceneStatistics` makes these, so the memberwise initialiser stays internal.
public struct Percentiles: Sendable, Equatable {
    public var p1: Double
    public var p50: Double
    public var p99: Double

    /// The fractions reported, in field order.
    static let fractions = [0.01, 0.5, 0.99]

    /// Ranks (0-based, ascending order) whose values a type-7 percentile at `fraction` of
    /// `count` values needs: k, and k + 1 unless h is a whole number or k is the last rank.
    static func ranks(fraction: Double, count: Int) -> [Int] {
        let h = Double(count - 1) * fraction
        let k = Int(h.rounded(.down))
        return h > Double(k) && k + 1 < count ? [k, k + 1] : [k]
    }

    /// Type-7 interpolation given the value at a rank (values must be non-decreasing in rank and
    /// not NaN; `value` is called only with the ranks of `ranks(fraction:count:)`).
    static func interpolate(fraction: Double, count: Int, value: (Int) -> Double) -> Double {
        let h = Double(count - 1) * fraction
        let k = Int(h.rounded(.down))
        let low = value(k)
        guard h > Double(k), k + 1 < count else { return low }
        let high = value(k + 1)
        // Equal neighbours (including two equal infinities) would give ∞ − ∞ below.
        guard high != low else { return low }
        return low + (h - Double(k)) * (high - low)
    }
}
