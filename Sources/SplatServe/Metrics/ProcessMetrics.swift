#if canImport(Glibc)
import Glibc
#endif
import SplatService

/// `process_resident_memory_bytes`, `process_cpu_seconds_total`, `process_open_fds` and
/// `process_max_fds` (the soft limit), read from `/proc/self` and `getrlimit` at each scrape,
/// named as Prometheus's own client libraries name them so standard dashboards work.
public enum ProcessMetrics {
    /// Registers the four sampled metrics on `registry`.
    public static func register(on registry: MetricsRegistry) {
        registry.sampledGauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            Double(residentBytes() ?? 0)
        }
        registry.sampledCounter("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.") {
            cpuSeconds() ?? 0
        }
        registry.sampledGauge("process_open_fds", help: "Number of open file descriptors.") {
            Double(OpenFileLimit.openCount() ?? 0)
        }
        registry.sampledGauge("process_max_fds", help: "Maximum number of open file descriptors.") {
            Double(OpenFileLimit.current?.soft ?? 0)
        }
    }

    /// Resident set size: the second field of `/proc/self/statm` (pages) times the page size.
    public static func residentBytes() -> Int? {
        guard let text = read("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// User plus system time: fields 14 and 15 of `/proc/self/stat`, in clock ticks. Fields
    /// are counted after the command name's closing parenthesis, since the name may hold spaces.
    public static func cpuSeconds() -> Double? {
        guard let text = read("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ticks > 0 ? (user + system) / ticks : nil
    }

    /// A small `/proc` file's text (both files are well under 1 KiB).
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }
}
