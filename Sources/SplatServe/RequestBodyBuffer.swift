import SplatCore

/// A request body gathered in memory, capped: the job's input buffer. Allocated once at the
/// declared `Content-Length` when there is one (so a large upload is neither copied on every
/// doubling nor at the end: `takeBytes` hands the buffer itself to the job), grown by doubling
/// otherwise, never past `capacityLimit`. `OwnedBytes`, like every input the decoders read.
public final class RequestBodyBuffer {
    /// Bytes this buffer will never exceed.
    public let capacityLimit: Int
    private var storage: OwnedBytes
    /// Bytes received so far.
    public private(set) var count = 0

    /// An empty buffer expecting `expectedBytes` (nil: unknown) and holding at most `capacityLimit`.
    public init(expectedBytes: Int?, capacityLimit: Int) {
        self.capacityLimit = max(0, capacityLimit)
        let initial = min(self.capacityLimit, max(1, expectedBytes ?? 64 << 10))
        storage = OwnedBytes(count: max(1, initial))
    }

    /// Appends `bytes`; false (and nothing appended) when they would pass the cap.
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        guard let needed = CheckedSize.add(count, bytes.count), needed <= capacityLimit else { return false }
        if needed > storage.count {
            let bigger = OwnedBytes(count: min(capacityLimit, max(needed, storage.count * 2)))
            bigger.base.copyMemory(from: storage.base, byteCount: count)
            storage = bigger
        }
        (storage.base + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count = needed
        return true
    }

    /// The bytes received so far; valid while the buffer lives and nothing is appended.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.base, count: count) }

    /// The bytes as a buffer of exactly `count` bytes — the buffer itself when it was sized
    /// right (the body had a `Content-Length`), else a copy — leaving this one empty.
    public func takeBytes() -> OwnedBytes {
        let taken = count == storage.count ? storage : OwnedBytes(copying: bytes)
        storage = OwnedBytes(count: 1)
        count = 0
        return taken
    }
}
