#if canImport(Glibc)
import Glibc
#endif

/// Large fresh buffers (scenes, per-frame render tables) are bound by first-touch page faults;
/// transparent 2 MiB pages cut their number 512-fold. Advice only: the kernel may ignore it,
/// and buffers under 8 MiB are left alone.
public enum HugePageAdvice {
    /// Advises huge pages for the 2 MiB-aligned interior of `[start, start + byteCount)`.
    public static func advise(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        let huge = 2 << 20
        guard byteCount >= 4 * huge else { return }
        let address = UInt(bitPattern: start)
        let first = (address + UInt(huge - 1)) & ~UInt(huge - 1)
        let end = (address + UInt(byteCount)) & ~UInt(huge - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, Int(end - first), MADV_HUGEPAGE)
        #endif
    }
}
