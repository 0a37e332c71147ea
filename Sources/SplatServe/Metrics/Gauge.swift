/// A value that goes up and down (requests in flight, bytes reserved).
public final class Gauge: Sendable {
    private let storage = AtomicDouble()

    init() {}

    public func set(_ value: Double) { storage.store(value) }
    public func add(_ delta: Double) { storage.add(delta) }
    public var value: Double { storage.value }
}

/// A gauge family: one `Gauge` per set of label values.
public final class GaugeFamily: MetricFamily {
    public let name: String
    let help: String
    private let children: LabelledChildren<Gauge>

    init(name: String, help: String, labelNames: [String]) {
        self.name = name
        self.help = help
        children = LabelledChildren(labelNames: labelNames) { Gauge() }
    }

    /// The gauge for these label values, in the order the labels were declared.
    public func labels(_ values: String...) -> Gauge { children.child(values) }

    /// The gauge of a family without labels.
    public var unlabelled: Gauge { children.child([]) }

    func expose(into out: inout String) {
        PrometheusText.header(name: name, help: help, type: "gauge", into: &out)
        for (labels, gauge) in children.all() {
            PrometheusText.sample(name, labels: labels, value: gauge.value, into: &out)
        }
    }
}

/// A metric without labels whose value is read when scraped (queue depth, resident memory,
/// CPU seconds), so it is never stale and nothing has to remember to update it. The reader
/// runs on the scraping thread and must be cheap.
final class SampledMetric: MetricFamily {
    enum Kind: String { case counter, gauge }
    let name: String
    let help: String
    let kind: Kind
    private let read: @Sendable () -> Double

    init(name: String, help: String, kind: Kind, read: @escaping @Sendable () -> Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.read = read
    }

    func expose(into out: inout String) {
        PrometheusText.header(name: name, help: help, type: kind.rawValue, into: &out)
        PrometheusText.sample(name, labels: [], value: read(), into: &out)
    }
}
