import Synchronization

/// A named metric with `# HELP` and `# TYPE` and one child per set of label values.
protocol MetricFamily: Sendable {
    var name: String { get }
    /// Writes the family's header and samples.
    func expose(into out: inout String)
}

/// The children of a labelled family, created on first use and kept for the process's life
/// (label values come from small fixed sets — routes, status codes, stages, reasons — never
/// from request data, so the map stays small).
final class LabelledChildren<Child: Sendable>: Sendable {
    let labelNames: [String]
    private let children = Mutex<[[String]: Child]>([:])
    private let order = Mutex<[[String]]>([])
    private let make: @Sendable () -> Child

    init(labelNames: [String], make: @escaping @Sendable () -> Child) {
        self.labelNames = labelNames
        self.make = make
        if labelNames.isEmpty { _ = child([]) }
    }

    /// The child for `values` (one per label name, in order); missing values read as "",
    /// extra ones are dropped, so a mistake shows in the output instead of trapping.
    func child(_ values: [String]) -> Child {
        var key = Array(values.prefix(labelNames.count))
        while key.count < labelNames.count { key.append("") }
        return children.withLock { map in
            if let existing = map[key] { return existing }
            let created = make()
            map[key] = created
            order.withLock { $0.append(key) }
            return created
        }
    }

    /// Children with their label pairs, in creation order (stable output between scrapes).
    func all() -> [([(String, String)], Child)] {
        let keys = order.withLock { $0 }
        let map = children.withLock { $0 }
        return keys.compactMap { key in map[key].map { (Array(zip(labelNames, key)), $0) } }
    }
}

/// A `Double` updated without a lock: the bits live in one atomic word and additions retry
/// on contention, so counting a request costs one or two atomic operations.
struct AtomicDouble: ~Copyable, Sendable {
    private let bits: Atomic<UInt64>

    init(_ value: Double = 0) { bits = Atomic(value.bitPattern) }

    var value: Double { Double(bitPattern: bits.load(ordering: .relaxed)) }

    func store(_ value: Double) { bits.store(value.bitPattern, ordering: .relaxed) }

    func add(_ delta: Double) {
        var old = bits.load(ordering: .relaxed)
        while true {
            let new = (Double(bitPattern: old) + delta).bitPattern
            let (exchanged, current) = bits.compareExchange(expected: old, desired: new, ordering: .relaxed)
            if exchanged { return }
            old = current
        }
    }
}
