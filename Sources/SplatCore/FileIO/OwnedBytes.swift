#if canImport(Glibc)
import Glibc
#endif

/// Bytes in memory this process owns. Inputs are read into one of these (or in slices, through
/// `RegularFile`) instead of being memory-mapped, so a file that shrinks under us is an error,
/// not a SIGBUS.
public final class OwnedBytes: @unchecked Sendable {
    public private(set) var base: UnsafeMutableRawPointer
    public private(set) var count: Int
    private var capacity: Int

    /// `count` uninitialised bytes (callers fill them).
    public init(count: Int) {
        capacity = max(64, count)
        base = malloc(capacity)!
        self.count = count
        HugePageAdvice.advise(base, byteCount: capacity)
    }

    /// A copy of `source`.
    public convenience init(copying source: UnsafeRawBufferPointer) {
        self.init(count: source.count)
        if source.count > 0 { base.copyMemory(from: source.baseAddress!, byteCount: source.count) }
    }

    deinit { free(base) }

    /// The bytes, valid only while this object is alive: a caller that does not hold it for
    /// longer than the use (a temporary) must use `withBytes`.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Runs `body` on the bytes, keeping this object alive until it returns.
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        defer { withExtendedLifetime(self) {} }
        return try body(bytes)
    }

    /// Grows the buffer to hold at least `needed` bytes, keeping its contents. `realloc` of a
    /// large block moves pages rather than copying them, so a stream read in growing steps is
    /// held once, not twice.
    func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        var next = capacity
        while next < needed { next = next > Int.max / 2 ? needed : next * 2 }
        base = realloc(base, next)!
        capacity = next
    }

    func setCount(_ n: Int) { count = n }
}

extension FileIO {
    /// Reads the regular file at `path` (a link is followed) into owned memory; see
    /// `RegularFile` for what is refused before any allocation. A file that shrinks while it is
    /// read ends in `truncated`.
    public static func readRegularFile(_ path: String, maxBytes: Int, threads: Int? = nil) throws(SplatError) -> OwnedBytes {
        try RegularFile(path: path, maxBytes: maxBytes).readAll(threads: threads)
    }

    /// Throws `io` "not a regular file" unless `status` is a regular file.
    public static func requireRegular(_ status: FileStatus, path: String) throws(SplatError) {
        switch status.kind {
        case .regular: return
        case .directory: throw SplatError(.io, "is a folder, not a regular file", file: path)
        default: throw SplatError(.io, "not a regular file (a \(status.kind.rawValue))", file: path)
        }
    }

    /// Reads a stream (standard input, a pipe) to its end into owned memory. `inspect` sees the
    /// first bytes (up to `inspectBytes`, fewer if the stream ends first) before anything more is
    /// read, so a stream that is not a splat file is refused at once instead of after gigabytes.
    /// More than `maxBytes` → `too_large` as soon as the cap is passed.
    public static func readStream(_ fd: Int32, name: String, maxBytes: Int, inspectBytes: Int = 4096,
                                  inspect: (UnsafeRawBufferPointer) throws(SplatError) -> Void) throws(SplatError) -> OwnedBytes {
        let first = min(inspectBytes, maxBytes + 1)
        let buffer = OwnedBytes(count: 0)
        buffer.reserve(max(first, 1 << 16))
        var total = try readAvailable(fd, into: buffer.base, count: first, path: name)
        buffer.setCount(min(total, maxBytes))
        try inspect(UnsafeRawBufferPointer(start: buffer.base, count: min(total, maxBytes)))
        var step = 1 << 20
        var ended = total < first
        while !ended {
            if total > maxBytes {
                throw SplatError(.tooLarge, "the stream is longer than the input limit of \(maxBytes) bytes (--max-input-bytes)", file: name)
            }
            let want = min(step, maxBytes + 1 - total)
            buffer.reserve(total + want)
            let n = try readAvailable(fd, into: buffer.base + total, count: want, path: name)
            total += n
            ended = n < want
            step = min(step * 2, 64 << 20)
        }
        if total > maxBytes {
            throw SplatError(.tooLarge, "the stream is longer than the input limit of \(maxBytes) bytes (--max-input-bytes)", file: name)
        }
        buffer.setCount(total)
        return buffer
    }
}
