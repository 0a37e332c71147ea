/// The large per-frame tables, kept by the renderer between frames. Fresh multi-hundred-megabyte
/// allocations are returned to the kernel when freed, so every frame would otherwise pay for
/// page faults and page clearing on all of them (a third of a 3.4 M-splat frame's time).
/// A scratch set is used by one frame at a time; buffers only grow.
final class FrameScratch: @unchecked Sendable {
    var projected = AlignedBuffer<ProjectedSplat>(count: 0)
    var binInfo = AlignedBuffer<SplatBinInfo>(count: 0)
    var keys = AlignedBuffer<UInt32>(count: 0)
    var values = AlignedBuffer<UInt32>(count: 0)
    var scratchKeys = AlignedBuffer<UInt32>(count: 0)
    var scratchValues = AlignedBuffer<UInt32>(count: 0)
    var sortedSplats = AlignedBuffer<ProjectedSplat>(count: 0)
    var rects = AlignedBuffer<SIMD4<UInt16>>(count: 0)
    var counters = AlignedBuffer<Int>(count: 0)
    var entries = AlignedBuffer<UInt32>(count: 0)

    /// Makes `buffer` hold at least `count` elements (contents are not preserved).
    static func ensure<T>(_ buffer: inout AlignedBuffer<T>, _ count: Int) {
        if buffer.count < count { buffer = AlignedBuffer(count: max(count, 1)) }
    }

    /// Bytes currently held.
    var bytes: Int {
        projected.count * MemoryLayout<ProjectedSplat>.stride + binInfo.count * MemoryLayout<SplatBinInfo>.stride
            + 4 * (keys.count + values.count + scratchKeys.count + scratchValues.count + entries.count)
            + sortedSplats.count * MemoryLayout<ProjectedSplat>.stride + rects.count * 8 + counters.count * 8
    }
}
