/// A value that only goes up (requests, rejections, splats decoded).
public final class Counter: SingleValueMetric {
    public static let typeName = "counter"
    private let storage = AtomicDouble()

    init() {}

    /// Adds `amount` (negative amounts are ignored: a counter never goes down).
    public func increment(by amount: Double = 1) {
        guard amount > 0, amount.isFinite else { return }
        storage.add(amount)
    }

    /// The current total.
    public var value: Double { storage.value }
}

/// A counter family: one `Counter` per set of label values.
public typealias CounterFamily = ValueFamily<Counter>
