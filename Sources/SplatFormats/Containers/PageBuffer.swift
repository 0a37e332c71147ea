import SplatCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Packed SPZ bytes in an anonymous memory mapping. Two properties matter for decoding large
/// scenes: reserving capacity costs no memory until a page is written (so an inflater can be given
/// a generous hard cap), and pages whose bytes have been dequantized can be handed back to the
/// system while the rest is still in use, so the packed payload and the decoded scene are not both
/// resident at full size.
final class PageBuffer: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    /// Bytes addressable from `base`.
    let capacity: Int
    /// Bytes mapped at `base`; 0 when the bytes come from the heap (`init(heapCapacity:)`).
    private let mappedBytes: Int
    private static let pageSize = FileIO.pageSize

    /// Reserves `capacity` bytes (contents zero until written). Throws `too_large` when the
    /// system refuses the mapping.
    init(capacity: Int, file: String?) throws(SplatError) {
        let page = Self.pageSize
        guard let rounded = CheckedSize.add(max(1, capacity), page - 1) else {
            throw SplatError(.tooLarge, "cannot reserve \(capacity) bytes", file: file)
        }
        let bytes = rounded / page * page
        let map = try FileIO.mapAnonymous(bytes, path: file)
        base = map
        self.capacity = capacity
        mappedBytes = bytes
        HugePageAdvice.advise(map, byteCount: bytes)
    }

    /// Buffers up to this size that are read only where written come from the allocator
    /// (`forExactSize`); larger ones are mapped, so what a big scene's streams held goes back to
    /// the system when they are freed instead of staying in the allocator's heap (+21 MB peak RSS
    /// on the 3.4 M-splat stress scene when every stream came from the heap).
    static let heapLimit = 8 << 20

    /// A buffer of `capacity` bytes whose caller reads only what it wrote (the contents are
    /// undefined until then, not zero). Up to `heapLimit` it comes from the allocator, which hands
    /// a long-running process's freed memory to the next job with its pages still mapped, where a
    /// fresh mapping costs a zeroed page per 4 KiB: `serve` rendering biker.spz thumbnails took
    /// 940 page faults a request with a mapping per v4 stream, 196 with these.
    static func forExactSize(_ capacity: Int, file: String?) throws(SplatError) -> PageBuffer {
        capacity <= heapLimit ? PageBuffer(heapCapacity: capacity) : try PageBuffer(capacity: capacity, file: file)
    }

    private init(heapCapacity capacity: Int) {
        base = UnsafeMutableRawPointer.allocate(byteCount: max(1, capacity), alignment: 64)
        self.capacity = capacity
        mappedBytes = 0
    }

    /// Maps the pages of `[start, start + byteCount)` now (the kernel zeroes them), so a later
    /// writer does not stop at each fault. Used on an idle core while another inflates. The
    /// contents are left as they are (`MADV_POPULATE_WRITE`); kernels without it get one zero
    /// written per page, so only use this on memory that will be overwritten anyway.
    static func populate(_ start: UnsafeMutableRawPointer, byteCount: Int) {
        guard byteCount > 0 else { return }
        #if os(Linux)
        let page = pageSize
        let address = UInt(bitPattern: start)
        let first = (address + UInt(page - 1)) & ~UInt(page - 1)
        let end = (address + UInt(byteCount)) & ~UInt(page - 1)
        guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return }
        if FileIO.populatePages(aligned, bytes: Int(end - first)) { return }
        var offset = 0
        while offset < Int(end - first) {
            aligned.storeBytes(of: 0, toByteOffset: offset, as: UInt8.self)
            offset += page
        }
        #endif
    }

    deinit {
        if mappedBytes == 0 { base.deallocate() } else { FileIO.unmap(base, bytes: mappedBytes) }
    }

    /// The first `count` bytes.
    func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: min(count, capacity))
    }

    /// Returns the whole pages inside `range` to the system; they read as zero afterwards. Pages
    /// only partly inside the range are kept, so a caller may release the bytes it alone reads
    /// while other threads still read their neighbours.
    func release(_ range: Range<Int>) {
        // Allocator memory is small (`heapLimit`) and goes back to the allocator whole.
        guard mappedBytes > 0 else { return }
        let page = Self.pageSize
        let start = (range.lowerBound + page - 1) / page * page
        let end = min(range.upperBound, capacity) / page * page
        guard end > start else { return }
        FileIO.discardPages(base + start, bytes: end - start)
    }
}
