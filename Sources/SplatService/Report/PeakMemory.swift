#if canImport(Glibc)
import Glibc
#endif

/// The process's peak resident set size so far (`getrusage(RUSAGE_SELF).ru_maxrss`).
/// It is process-wide and never goes down: in a batch with several jobs it covers every job that
/// ran before or alongside, so it bounds a job's use rather than measuring it.
public enum PeakMemory {
    /// Bytes (Linux reports kibibytes), nil when the call fails.
    public static func residentBytes() -> Int? {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return nil }
        return Int(usage.ru_maxrss) * 1024
    }
}
