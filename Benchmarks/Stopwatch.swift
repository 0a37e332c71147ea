import Foundation

/// Times a closure with `ContinuousClock`: one warm-up run, then `runs` measured runs.
///
/// Whatever the closure returns is dropped only after the clock has been read, so freeing a
/// decoded scene (unmapping hundreds of MiB) is not charged to the decoder, and the baselines,
/// which return their buffers the same way, are treated alike.
struct Stopwatch: Sendable {
    var warmUps = 1
    var runs = 5

    func measure<T>(_ body: () throws -> T) rethrows -> Sample {
        let clock = ContinuousClock()
        var warm: Double?
        for _ in 0..<warmUps {
            let start = clock.now
            let kept = try body()
            let elapsed = clock.now - start
            withExtendedLifetime(kept) {}
            warm = Self.milliseconds(elapsed)
        }
        var values: [Double] = []
        var cpu: [Double] = []
        for _ in 0..<max(1, runs) {
            let startCPU = Self.cpuMilliseconds()
            let start = clock.now
            let kept = try body()
            let elapsed = clock.now - start
            let usedCPU = Self.cpuMilliseconds() - startCPU
            withExtendedLifetime(kept) {}
            values.append(Self.milliseconds(elapsed))
            cpu.append(usedCPU)
        }
        return Sample(values, warmUp: warm, cpu: cpu)
    }

    /// User + system time of this process so far, all threads.
    static func cpuMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return timevalMilliseconds(usage.ru_utime) + timevalMilliseconds(usage.ru_stime)
    }

    static func timevalMilliseconds(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
    }
}
