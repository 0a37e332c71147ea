import Synchronization

/// Observations counted into buckets by upper bound, with their sum and count.
public final class Histogram: Sendable {
    /// Upper bounds in seconds for request and stage durations: Prometheus's defaults
    /// (5 ms … 10 s) plus 30 s and 60 s, because a render may run up to the 30 s default
    /// request timeout and the default buckets would put every slow job in `+Inf`.
    public static let durationBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    /// Sorted, finite upper bounds; `+Inf` is implicit.
    public let upperBounds: [Double]
    private struct State {
        var counts: [UInt64]
        var sum: Double = 0
        var count: UInt64 = 0
    }
    // A lock rather than atomics: an observation touches three values that a scrape must see
    // together (bucket counts never exceeding the total), and the lock is held for nanoseconds.
    private let state: Mutex<State>

    init(upperBounds: [Double]) {
        let bounds = Array(Set(upperBounds.filter(\.isFinite))).sorted()
        self.upperBounds = bounds
        state = Mutex(State(counts: Array(repeating: 0, count: bounds.count)))
    }

    /// Counts one observation (non-finite values are ignored).
    public func observe(_ value: Double) {
        guard value.isFinite else { return }
        let index = upperBounds.firstIndex { value <= $0 }
        state.withLock { s in
            if let index { s.counts[index] += 1 }
            s.sum += value
            s.count += 1
        }
    }

    /// Counts a duration in seconds.
    public func observe(_ duration: Duration) {
        let (seconds, atto) = duration.components
        observe(Double(seconds) + Double(atto) / 1e18)
    }

    /// Observations so far.
    public var count: UInt64 { state.withLock { $0.count } }

    /// Cumulative counts per bound (the last entry is `+Inf`), the sum and the count.
    func snapshot() -> (cumulative: [UInt64], sum: Double, count: UInt64) {
        let s = state.withLock { $0 }
        var running: UInt64 = 0
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(s.counts.count + 1)
        for c in s.counts {
            running += c
            cumulative.append(running)
        }
        cumulative.append(s.count)
        return (cumulative, s.sum, s.count)
    }
}

/// A histogram family: one `Histogram` per set of label values, all with the same buckets.
public final class HistogramFamily: MetricFamily {
    public let name: String
    let help: String
    let upperBounds: [Double]
    private let children: LabelledChildren<Histogram>

    init(name: String, help: String, labelNames: [String], upperBounds: [Double]) {
        self.name = name
        self.help = help
        self.upperBounds = upperBounds
        children = LabelledChildren(labelNames: labelNames) { Histogram(upperBounds: upperBounds) }
    }

    /// The histogram for these label values, in the order the labels were declared.
    public func labels(_ values: String...) -> Histogram { children.child(values) }

    /// The histogram of a family without labels.
    public var unlabelled: Histogram { children.child([]) }

    func expose(into out: inout String) {
        PrometheusText.header(name: name, help: help, type: "histogram", into: &out)
        for (labels, histogram) in children.all() {
            let (cumulative, sum, count) = histogram.snapshot()
            let bounds = histogram.upperBounds.map(PrometheusText.format) + ["+Inf"]
            for (bound, value) in zip(bounds, cumulative) {
                PrometheusText.sample(name + "_bucket", labels: labels + [("le", bound)], value: Double(value), into: &out)
            }
            PrometheusText.sample(name + "_sum", labels: labels, value: sum, into: &out)
            PrometheusText.sample(name + "_count", labels: labels, value: Double(count), into: &out)
        }
    }
}
