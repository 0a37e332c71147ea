#if canImport(Glibc)
import Glibc
#endif

/// An anonymous mapping the benchmarks write into, unmapped on deinit. Fresh pages cost a page
/// fault on first touch, which is what a decoder filling a newly allocated scene pays; the
/// baselines use these so they pay the same. `hugePages` advises transparent huge pages over the
/// 2 MiB-aligned interior (as the SPZ decoder does for its buffers): one fault per 2 MiB instead
/// of per 4 KiB. `SplatScene` advises its slab the same way; a plain large `malloc` block is
/// `hugePages: false` on a system where THP is `madvise`-only.
final class FreshBuffer: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let size: Int

    init(_ size: Int, hugePages: Bool = true) {
        self.size = max(1, size)
        guard let map = mmap(nil, self.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              map != MAP_FAILED else {
            fatalError("benchmark buffer of \(size) bytes: mmap failed")
        }
        base = map
        if hugePages {
            let huge = UInt(2 << 20), address = UInt(bitPattern: base)
            let first = (address + huge - 1) & ~(huge - 1), end = (address + UInt(self.size)) & ~(huge - 1)
            if end > first { madvise(UnsafeMutableRawPointer(bitPattern: first), Int(end - first), 14 /* MADV_HUGEPAGE */) }
        }
    }

    /// A buffer whose pages are already mapped (written once), for the no-fault baselines.
    static func touched(_ size: Int, hugePages: Bool = false) -> FreshBuffer {
        let buffer = FreshBuffer(size, hugePages: hugePages)
        memset(buffer.base, 1, buffer.size)
        return buffer
    }

    deinit { munmap(base, size) }
}
