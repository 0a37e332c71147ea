#if canImport(Glibc)
import Glibc
#endif

/// Bytes in memory this process owns. Inputs are read into one of these instead of being
/// memory-mapped: a mapped file that another process truncates turns the next access into
/// SIGBUS, which no error handling can catch, while a short `pread` is an ordinary `truncated`
/// error for that input alone.
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

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

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
    /// Reads the regular file at `path` (a link is followed) into owned memory, refusing before
    /// any allocation what must not be read: a folder, a FIFO, a device or a socket (`io`, "not a
    /// regular file" — opening is non-blocking, so a FIFO without a writer does not hang), and a
    /// file over `maxBytes` (`too_large`). Large files are read by all cores in parallel slices.
    /// A file that shrinks while it is read ends in `truncated`.
    public static func readRegularFile(_ path: String, maxBytes: Int, threads: Int? = nil) throws(SplatError) -> OwnedBytes {
        let fd = try open(path, O_RDONLY | O_NONBLOCK)
        defer { close(fd) }
        let status = try status(of: fd, path: path)
        try requireRegular(status, path: path)
        guard status.size <= maxBytes else {
            throw SplatError(.tooLarge, "the file is \(status.size) bytes; the input limit is \(maxBytes) (--max-input-bytes)", file: path)
        }
        let buffer = OwnedBytes(count: status.size)
        let slice = 16 << 20
        if status.size <= slice {
            try read(fd, into: buffer.base, count: status.size, at: 0, path: path)
            return buffer
        }
        // Slices land in their own part of the buffer, so the result never depends on the thread
        // count; the error reported is that of the lowest failing slice.
        let slices = (status.size + slice - 1) / slice
        _ = try Parallel.map(slices, threads: threads, cancellation: CancellationToken.current) { (k: Int) throws(SplatError) -> Bool in
            let start = k * slice
            try read(fd, into: buffer.base + start, count: min(slice, status.size - start), at: start, path: path)
            return true
        }
        return buffer
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
