/// Summary of one attribute's stored values (one column, or every coefficient of one SH band):
/// how many there are, how many are NaN or infinite, and the extremes, mean and standard
/// deviation of the finite ones.
public struct AttributeStatistics: Sendable, Equatable {
    /// Values looked at (splats × values per splat).
    public var count: Int
    /// Values that are neither NaN nor ±∞; `minimum` … `standardDeviation` describe only these.
    public var finiteCount: Int
    public var nanCount: Int
    public var positiveInfinityCount: Int
    public var negativeInfinityCount: Int
    /// Smallest finite value; nil when there is none.
    public var minimum: Double?
    /// Largest finite value; nil when there is none.
    public var maximum: Double?
    /// Mean of the finite values; nil when there is none.
    public var mean: Double?
    /// Population standard deviation (divisor n, not n − 1) of the finite values: these are all
    /// the values, not a sample of them. nil when there is none.
    public var standardDeviation: Double?

    public init(count: Int, finiteCount: Int, nanCount: Int, positiveInfinityCount: Int, negativeInfinityCount: Int,
                minimum: Double?, maximum: Double?, mean: Double?, standardDeviation: Double?) {
        self.count = count
        self.finiteCount = finiteCount
        self.nanCount = nanCount
        self.positiveInfinityCount = positiveInfinityCount
        self.negativeInfinityCount = negativeInfinityCount
        self.minimum = minimum
        self.maximum = maximum
        self.mean = mean
        self.standardDeviation = standardDeviation
    }

    init(_ m: ColumnMoments) {
        let some = m.finiteCount > 0
        self.init(count: m.count, finiteCount: m.finiteCount, nanCount: m.nanCount,
                  positiveInfinityCount: m.positiveInfinityCount, negativeInfinityCount: m.negativeInfinityCount,
                  minimum: some ? Double(m.minimum) : nil, maximum: some ? Double(m.maximum) : nil,
                  mean: some ? m.mean : nil, standardDeviation: some ? (m.m2 / Double(m.finiteCount)).squareRoot() : nil)
    }

    /// NaN plus ±∞ values.
    public var nonFiniteCount: Int { nanCount + positiveInfinityCount + negativeInfinityCount }

    /// True when some value is not exactly zero (NaN and ±∞ count as non-zero): decides the
    /// effective SH degree. −0 is zero.
    public var hasNonZero: Bool {
        nonFiniteCount > 0 || (minimum ?? 0) != 0 || (maximum ?? 0) != 0
    }
}
