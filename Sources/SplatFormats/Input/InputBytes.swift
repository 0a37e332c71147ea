import SplatCore

/// The bytes of one input, owned by this process. Files are read with `pread` into memory rather
/// than memory-mapped, so an input that changes size while it is decoded gives that input a
/// `truncated` error instead of killing the process with SIGBUS; only regular files are read,
/// and never more than the limits allow (`DecodeLimits.inputByteLimit`).
public final class InputBytes: @unchecked Sendable {
    private let storage: OwnedBytes
    /// The name used in messages and for extension-based detection.
    public let name: String

    public var bytes: UnsafeRawBufferPointer { storage.bytes }

    /// Reads the regular file at `path`. A folder, FIFO, device or socket → `io` "not a regular
    /// file"; a file over `limits.inputByteLimit` → `too_large`, before anything is allocated.
    public init(path: String, limits: DecodeLimits = DecodeLimits()) throws(SplatError) {
        name = path
        storage = try FileIO.readRegularFile(path, maxBytes: limits.inputByteLimit)
    }

    /// Wraps bytes already read (e.g. standard input), named `name`.
    public init(owning bytes: OwnedBytes, name: String) {
        storage = bytes
        self.name = name
    }

    /// Wraps bytes already in memory (copied).
    public convenience init(copying source: UnsafeRawBufferPointer, name: String) {
        self.init(owning: OwnedBytes(copying: source), name: name)
    }
}
