import SplatCore

/// A request body gathered in memory, capped: the job's input buffer. Allocated once at the
/// declared `Content-Length` when there is one (so a large upload is not copied on every
/// doubling), grown by doubling otherwise, never past `capacityLimit`. 64-byte aligned like
/// every buffer the decoders read.
public final class RequestBodyBuffer {
    /// Bytes this buffer will never exceed.
    public let capacityLimit: Int
    private var storage: UnsafeMutableRawBufferPointer
    /// Bytes received so far.
    public private(set) var count = 0

    /// An empty buffer expecting `expectedBytes` (nil: unknown) and holding at most `capacityLimit`.
    public init(expectedBytes: Int?, capacityLimit: Int) {
        self.capacityLimit = max(0, capacityLimit)
        let initial = min(self.capacityLimit, max(1, expectedBytes ?? 64 << 10))
        storage = .allocate(byteCount: max(1, initial), alignment: 64)
    }

    deinit { storage.deallocate() }

    /// Appends `bytes`; false (and nothing appended) when they would pass the cap.
    public func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count > 0 else { return true }
        guard let needed = CheckedSize.add(count, bytes.count), needed <= capacityLimit else { return false }
        if needed > storage.count {
            let grown = min(capacityLimit, max(needed, storage.count * 2))
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: grown, alignment: 64)
            bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
            storage.deallocate()
            storage = bigger
        }
        UnsafeMutableRawBufferPointer(rebasing: storage[count..<needed]).copyMemory(from: bytes)
        count = needed
        return true
    }

    /// The bytes received so far; valid while the buffer lives and nothing is appended.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[0..<count]) }
}
