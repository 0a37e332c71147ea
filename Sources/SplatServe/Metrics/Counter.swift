/// A value that only goes up (requests, rejections, splats decoded).
public final class Counter: Sendable {
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
public final class CounterFamily: MetricFamily {
    public let name: String
    let help: String
    private let children: LabelledChildren<Counter>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        children = LabelledChildren(labelNames: labelNames) { Counter() }
    }

    /// The counter for these label values, in the order the labels were declared.
    public func labels(_ values: String...) -> Counter { children.child(values) }

    /// The counter of a family without labels.
    public var unlabelled: Counter { children.child([]) }

    func expose(into out: inout String) {
        PrometheusText.header(name: name, help: help, type: "counter", into: &out)
        for (labels, counter) in children.all() {
            PrometheusText.sample(name, labels: labels, value: counter.value, into: &out)
        }
    }
}
