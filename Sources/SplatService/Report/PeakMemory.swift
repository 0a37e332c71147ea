import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// The process's peak resident set size so far. It is process-wide and never goes down: in a
/// batch with several jobs it covers every job that ran before or alongside, so it bounds a
/// job's use rather than measuring it.
///
/// On Linux it is `VmHWM` of /proc/self/status, the high-water mark of this process's own
/// memory. `getrusage(RUSAGE_SELF).ru_maxrss` is not: the kernel folds in the high-water mark of
/// the memory the process had before `exec`, and a child started with `posix_spawn` or `vfork`
/// (a Python or Swift service, a test runner) runs on its parent's memory until then — a
/// 4-splat job started by a 500 MB parent reported 538 MB.
public enum PeakMemory {
    /// Bytes, nil when neither source answers.
    public static func residentBytes() -> Int? {
        highWaterMark() ?? maxRSS()
    }

    /// `VmHWM` of /proc/self/status in bytes, nil where there is no such file.
    static func highWaterMark() -> Int? {
        guard let fd = try? FileIO.open("/proc/self/status", O_RDONLY) else { return nil }
        defer { FileIO.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16384)
        let n = buffer.withUnsafeMutableBytes { raw in
            (try? FileIO.readAvailable(fd, into: raw.baseAddress!, count: raw.count, path: "/proc/self/status")) ?? 0
        }
        return highWaterMark(inStatus: String(decoding: buffer.prefix(n), as: UTF8.self))
    }

    /// The `VmHWM:   1234 kB` line of a /proc status text, in bytes.
    static func highWaterMark(inStatus text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }

    /// `ru_maxrss` (Linux reports kibibytes).
    static func maxRSS() -> Int? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss) * 1024
    }
}
