import Synchronization

/// The metrics one process exposes on `/metrics`, in the Prometheus text format 0.0.4.
/// Families are registered once (at startup) and updated from any thread; a scrape writes
/// them in registration order. Updating a counter or gauge is one or two atomic operations on
/// a child the caller may keep; looking a child up by label values takes a short lock.
public final class MetricsRegistry: Sendable {
    private let families = Mutex<[any MetricFamily]>([])

    public init() {}

    /// A counter family. Registering a name again returns the family already registered.
    /// Names must match `[a-zA-Z_:][a-zA-Z0-9_:]*` and be unique across kinds: they are
    /// constants in our code, so a bad one is a programming error and stops the process.
    public func counter(_ name: String, help: String, labels: [String] = []) -> CounterFamily {
        register(name, labels: labels) { CounterFamily(name: name, help: help, labelNames: labels) { Counter() } }
    }

    /// A gauge family (same naming rules as `counter`).
    public func gauge(_ name: String, help: String, labels: [String] = []) -> GaugeFamily {
        register(name, labels: labels) { GaugeFamily(name: name, help: help, labelNames: labels) { Gauge() } }
    }

    /// A histogram family; `buckets` are upper bounds (`+Inf` is added), by default
    /// `Histogram.durationBuckets`, in seconds.
    public func histogram(_ name: String, help: String, labels: [String] = [],
                          buckets: [Double] = Histogram.durationBuckets) -> HistogramFamily {
        register(name, labels: labels) { HistogramFamily(name: name, help: help, labelNames: labels, upperBounds: buckets) }
    }

    /// A gauge without labels whose value `read` returns at each scrape.
    public func sampledGauge(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        _ = register(name, labels: []) { SampledMetric(name: name, help: help, kind: .gauge, read: read) }
    }

    /// A counter without labels whose total `read` returns at each scrape (e.g. CPU seconds
    /// kept by the kernel).
    public func sampledCounter(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        _ = register(name, labels: []) { SampledMetric(name: name, help: help, kind: .counter, read: read) }
    }

    /// Every family as one scrape response body.
    public func exposition() -> String {
        let all = families.withLock { $0 }
        var out = ""
        out.reserveCapacity(256 * all.count)
        for family in all { family.expose(into: &out) }
        return out
    }

    private func register<F: MetricFamily>(_ name: String, labels: [String], _ make: () -> F) -> F {
        precondition(PrometheusText.isValidName(name), "invalid metric name \(name)")
        precondition(labels.allSatisfy { PrometheusText.isValidName($0, allowColon: false) && $0 != "le" && !$0.hasPrefix("__") },
                     "invalid label names \(labels) for \(name)")
        return families.withLock { list in
            if let existing = list.first(where: { $0.name == name }) {
                guard let same = existing as? F else { preconditionFailure("metric \(name) is already registered as another kind") }
                return same
            }
            let created = make()
            list.append(created)
            return created
        }
    }
}
