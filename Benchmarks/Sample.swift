/// The timed runs of one figure, in its own unit (milliseconds for times): median, fastest and
/// slowest of the measured runs, plus the warm-up run kept apart (for the renderer it is the
/// first frame, which pays for allocating the per-frame tables). For times measured by the
/// stopwatch, `cpu` holds each run's CPU time (user + system, all threads, ms): on a machine
/// shared with other work it stays steadier than the wall time, and wall × threads much above
/// it means the run waited for cores.
struct Sample: Sendable {
    var values: [Double]
    var warmUp: Double?
    var cpu: [Double] = []

    init(_ values: [Double], warmUp: Double? = nil, cpu: [Double] = []) {
        self.values = values
        self.warmUp = warmUp
        self.cpu = cpu
    }

    var median: Double { Self.median(values) }
    var cpuMedian: Double? { cpu.isEmpty ? nil : Self.median(cpu) }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }
    var runs: Int { values.count }

    /// The same runs in another unit, e.g. a time turned into a throughput (`amount / value`);
    /// the order of min and max follows from the values, not from the caller. CPU times do not
    /// carry over.
    func map(_ transform: (Double) -> Double) -> Sample {
        Sample(values.map(transform), warmUp: warmUp.map(transform))
    }
}
