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

    /// Reads a stream (standard input) once, into its final buffer, refusing it from its first
    /// bytes when they are not a splat file (unless `format` is given: `.splat` has no magic)
    /// and as soon as it passes `limits.inputByteLimit` (`too_large`).
    public static func readStream(_ fd: Int32, name: String, format: SplatFormat?,
                                  limits: DecodeLimits) throws(SplatError) -> InputBytes {
        let owned = try FileIO.readStream(fd, name: name, maxBytes: limits.inputByteLimit) { (first) throws(SplatError) in
            try sniff(first, name: name, format: format)
        }
        return InputBytes(owning: owned, name: name)
    }

    /// The same rules as `readStream` for bytes already in memory (a caller's buffer, tests).
    public static func checked(_ bytes: UnsafeRawBufferPointer, name: String, format: SplatFormat?,
                               limits: DecodeLimits) throws(SplatError) -> InputBytes {
        try check(bytes, name: name, format: format, limits: limits)
        return InputBytes(copying: bytes, name: name)
    }

    /// `checked` for bytes this process already owns (a request body), taken over without a copy.
    public static func checked(owning bytes: OwnedBytes, name: String, format: SplatFormat?,
                               limits: DecodeLimits) throws(SplatError) -> InputBytes {
        try check(bytes.bytes, name: name, format: format, limits: limits)
        return InputBytes(owning: bytes, name: name)
    }

    private static func check(_ bytes: UnsafeRawBufferPointer, name: String, format: SplatFormat?,
                              limits: DecodeLimits) throws(SplatError) {
        guard bytes.count <= limits.inputByteLimit else {
            throw SplatError(.tooLarge, "the stream is longer than the input limit of \(limits.inputByteLimit) bytes (--max-input-bytes)", file: name)
        }
        try sniff(UnsafeRawBufferPointer(rebasing: bytes.prefix(FormatSniffer.windowBytes)), name: name, format: format)
    }

    private static func sniff(_ first: UnsafeRawBufferPointer, name: String, format: SplatFormat?) throws(SplatError) {
        guard format == nil else { return }
        do throws(SplatError) {
            _ = try FormatSniffer.detect(prefix: first, name: name)
        } catch {
            guard error.kind == .badMagic, name == "-" else { throw error }
            var hinted = error
            hinted.message += "; .splat data on standard input needs --format splat"
            throw hinted
        }
    }
}
