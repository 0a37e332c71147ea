/// The large per-frame tables, kept by the renderer between frames. Fresh multi-hundred-megabyte
/// allocations are returned to the kernel when freed, so every frame would otherwise pay for
/// page faults and page clearing on all of them (a third of a 3.4 M-splat frame's time).
/// A scratch set is used by one frame at a time; buffers only grow.
final class FrameScratch: @unchecked Sendable {
    /// Per slot (`Preprocessor`): compositor record, depth, tile rectangle.
    var projected = AlignedBuffer<ProjectedSplat>(count: 0)
    var depth = AlignedBuffer<Float>(count: 0)
    var rects = AlignedBuffer<TileRect>(count: 0)
    /// Per-block tile counters of the binner.
    var counters = AlignedBuffer<Int>(count: 0)
    /// Per (tile, splat) pair: the slot, grouped by tile.
    var entries = AlignedBuffer<UInt32>(count: 0)

    /// Bytes one slot of the per-splat tables takes.
    static let bytesPerSlot = MemoryLayout<ProjectedSplat>.stride + MemoryLayout<Float>.stride + MemoryLayout<TileRect>.stride

    /// Makes `buffer` hold at least `count` elements (contents are not preserved).
    static func ensure<T>(_ buffer: inout AlignedBuffer<T>, _ count: Int) {
        if buffer.count < count { buffer = AlignedBuffer(count: max(count, 1)) }
    }

    /// Bytes currently held.
    var bytes: Int {
        projected.count * MemoryLayout<ProjectedSplat>.stride + depth.count * 4 + rects.count * MemoryLayout<TileRect>.stride
            + counters.count * 8 + entries.count * 4
    }
}
