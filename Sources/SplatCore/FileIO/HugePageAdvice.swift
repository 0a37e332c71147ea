#if canImport(Glibc)
import Glibc
#endif

/// Large fresh buffers (scenes, per-frame render tables) are bound by first-touch page faults;
/// transparent 2 MiB pages cut their number 512-fold. Advice only: the kernel may ignore it,
/// and buffers under 8 MiB are left alone.
///
/// `SPLATRENDER_HUGE_PAGES=off` (or `0`, `never`, `false`) turns the advice off for the process.
/// On a VM whose balloon driver reports free memory to its host, huge pages come from reported
/// (host-unbacked) blocks: there a run after a few seconds of idleness measured 0.87–0.93 s with
/// the advice and 0.55–0.60 s without, while back-to-back runs measured 0.41–0.48 s with it and
/// 0.57–0.61 s without (`splatrender stress.v4.spz --out t.png`, 3.4 M splats).
public enum HugePageAdvice {
    /// Whether the advice is given: read once from `SPLATRENDER_HUGE_PAGES`.
    public static let isEnabled: Bool = enabled(byEnvironment: getenv("SPLATRENDER_HUGE_PAGES").map { String(cString: $0) })

    /// The rule for the variable's value: nil or any other value keeps the advice.
    public static func enabled(byEnvironment value: String?) -> Bool {
        guard let value else { return true }
        return !["off", "0", "never", "false", "no"].contains(value.lowercased())
    }

    /// Advises huge pages for the 2 MiB-aligned interior of `[start, start + byteCount)`.
    public static func advise(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        let huge = 2 << 20
        guard byteCount >= 4 * huge, isEnabled else { return }
        let address = UInt(bitPattern: start)
        let first = (address + UInt(huge - 1)) & ~UInt(huge - 1)
        let end = (address + UInt(byteCount)) & ~UInt(huge - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(aligned, Int(end - first), MADV_HUGEPAGE)
        #endif
    }
}
