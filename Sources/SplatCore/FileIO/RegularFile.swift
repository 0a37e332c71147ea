#if canImport(Glibc)
import Glibc
#endif

/// An open regular file that is read with `pread`, never mapped: a mapped file that another
/// process truncates turns the next access into SIGBUS, which no error handling can catch, while
/// a short `pread` is an ordinary `truncated` error for that input alone.
///
/// Opening refuses, before anything is allocated, what must not be read: a folder, a FIFO, a
/// device or a socket (`io`, "not a regular file"; the open is non-blocking, so a FIFO without a
/// writer does not hang) and a file over the caller's byte limit (`too_large`). A decoder that can
/// consume its input in slices (binary PLY rows) reads them straight into a small per-core buffer
/// instead of holding the whole file, which saves a copy of every byte into fresh memory.
public final class RegularFile: @unchecked Sendable {
    /// The path it was opened with, for messages.
    public let path: String
    /// Bytes, as `fstat` said when it was opened. The file may shrink afterwards; reads past its
    /// new end are `truncated`.
    public let size: Int
    private let fd: Int32

    /// Opens the regular file at `path` (a link is followed) holding at most `maxBytes`.
    public init(path: String, maxBytes: Int) throws(SplatError) {
        let fd = try FileIO.open(path, O_RDONLY | O_NONBLOCK)
        let status: FileStatus
        do throws(SplatError) {
            status = try FileIO.status(of: fd, path: path)
            try FileIO.requireRegular(status, path: path)
            guard status.size <= maxBytes else {
                throw SplatError(.tooLarge, "the file is \(status.size) bytes; the input limit is \(maxBytes) (--max-input-bytes)", file: path)
            }
        } catch {
            FileIO.close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
        size = status.size
    }

    deinit { FileIO.close(fd) }

    /// Reads exactly `count` bytes at `offset` into `buffer`; fewer left in the file → `truncated`.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws(SplatError) {
        try FileIO.read(fd, into: buffer, count: count, at: offset, path: path)
    }

    /// The first `min(count, size)` bytes, in owned memory.
    public func readPrefix(_ count: Int) throws(SplatError) -> OwnedBytes {
        let n = max(0, min(count, size))
        let buffer = OwnedBytes(count: n)
        try read(into: buffer.base, count: n, at: 0)
        return buffer
    }

    /// The whole file in owned memory. Large files are read by all cores in parallel slices that
    /// land in their own part of the buffer, so the result never depends on the thread count; the
    /// error reported is that of the lowest failing slice.
    public func readAll(threads: Int? = nil) throws(SplatError) -> OwnedBytes {
        let buffer = OwnedBytes(count: size)
        let slice = 16 << 20
        if size <= slice {
            try read(into: buffer.base, count: size, at: 0)
            return buffer
        }
        let slices = (size + slice - 1) / slice
        _ = try Parallel.map(slices, threads: threads, cancellation: CancellationToken.current) { (k: Int) throws(SplatError) -> Bool in
            let start = k * slice
            try read(into: buffer.base + start, count: min(slice, size - start), at: start)
            return true
        }
        return buffer
    }
}
