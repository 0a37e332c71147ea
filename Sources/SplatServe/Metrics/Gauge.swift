/// A value that goes up and down (requests in flight, bytes reserved).
public final class Gauge: SingleValueMetric {
    public static let typeName = "gauge"
    private let storage = AtomicDouble()

    init() {}

    public func set(_ value: Double) { storage.store(value) }
    public func add(_ delta: Double) { storage.add(delta) }
    public var value: Double { storage.value }
}

/// A gauge family: one `Gauge` per set of label values.
public typealias GaugeFamily = ValueFamily<Gauge>

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
