import SplatCore

/// Bytes plus whatever keeps them alive: a region of a memory-mapped file, of an archive held
/// by the caller, or a heap buffer this value owns (an inflated zip entry, a decoded image).
struct RetainedBytes: @unchecked Sendable {
    /// A heap buffer freed when the last reference goes away.
    final class Storage: @unchecked Sendable {
        let buffer: UnsafeMutableRawBufferPointer

        /// Allocates `count` uninitialised bytes; callers check `DecodeLimits` first.
        init(count: Int) {
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, count), alignment: 64)
        }

        deinit { buffer.deallocate() }
    }

    private let bytes: UnsafeRawBufferPointer
    /// Retains the memory behind `bytes`; nil when the caller guarantees its lifetime.
    private let owner: AnyObject?

    init(bytes: UnsafeRawBufferPointer, owner: AnyObject?) {
        self.bytes = bytes
        self.owner = owner
    }

    var count: Int { bytes.count }

    /// Lends the bytes to `body`, keeping their owner alive until it returns (a value's lifetime
    /// otherwise ends at its last use, which could free the buffer under the pointer).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(owner) {} }
        return try body(bytes)
    }
}
