/// A metric whose every child is one number (a counter or a gauge).
public protocol SingleValueMetric: Sendable {
    var value: Double { get }
    /// The Prometheus `# TYPE` word.
    static var typeName: String { get }
}

/// A family of single-value metrics: one child per set of label values. `CounterFamily` and
/// `GaugeFamily` are this family; only their children's operations differ.
public final class ValueFamily<Child: SingleValueMetric>: MetricFamily {
    public let name: String
    let help: String
    private let children: LabelledChildren<Child>

    init(name: String, help: String, labelNames: [String], make: @escaping @Sendable () -> Child) {
        self.name = name
        self.help = help
        children = LabelledChildren(labelNames: labelNames, make: make)
    }

    /// The child for these label values, in the order the labels were declared.
    public func labels(_ values: String...) -> Child { children.child(values) }

    /// The child of a family without labels.
    public var unlabelled: Child { children.child([]) }

    func expose(into out: inout String) {
        PrometheusText.header(name: name, help: help, type: Child.typeName, into: &out)
        for (labels, child) in children.all() {
            PrometheusText.sample(name, labels: labels, value: child.value, into: &out)
        }
    }
}
