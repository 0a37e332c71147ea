import SplatCore

/// A fixed-size, 64-byte-aligned, uninitialised array of trivial values owned by a class, so the
/// large per-scene and per-frame tables free themselves and can be handed to worker threads as
/// raw pointers. Only for trivial types (Float, UInt32, plain structs of them).
final class AlignedBuffer<Element>: @unchecked Sendable {
    let count: Int
    let base: UnsafeMutablePointer<Element>

    /// `count` elements plus `padding` addressable elements past the end (SIMD blocks may read
    /// there); the padding is zero-filled, the rest is left uninitialised unless `zeroed`.
    init(count: Int, padding: Int = 0, zeroed: Bool = false) {
        self.count = count
        let total = max(1, count + padding)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: total * MemoryLayout<Element>.stride,
                                                   alignment: max(64, MemoryLayout<Element>.alignment))
        // Per-frame tables of a multi-million-splat scene fault in page by page on a cold frame.
        HugePageAdvice.advise(raw, byteCount: total * MemoryLayout<Element>.stride)
        if zeroed {
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: total * MemoryLayout<Element>.stride)
        } else if padding > 0 {
            (raw + count * MemoryLayout<Element>.stride)
                .initializeMemory(as: UInt8.self, repeating: 0, count: padding * MemoryLayout<Element>.stride)
        }
        base = raw.bindMemory(to: Element.self, capacity: total)
    }

    deinit { UnsafeMutableRawPointer(base).deallocate() }

    subscript(i: Int) -> Element {
        get { base[i] }
        set { base[i] = newValue }
    }
}
