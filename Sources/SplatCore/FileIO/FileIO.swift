#if canImport(Glibc)
import Glibc
#endif

/// The one place that talks to the kernel about files: open, stat, read, write, flush, rename,
/// memory maps and their advice. Everything else calls these, so the retry rules (EINTR, short
/// reads and writes), the checks that make a long-running process safe (only regular files are
/// read, reads never exceed what the limits allow, a file that shrinks under us is an error and
/// not a SIGBUS) and the `errno` → `SplatError` mapping are written once.
public enum FileIO {
    /// The text of the current `errno`.
    public static var lastErrorText: String { String(cString: strerror(errno)) }

    /// An `io` error for `path` saying what failed and why (from `errno`).
    public static func error(_ what: String, path: String?, kind: SplatErrorKind = .io) -> SplatError {
        SplatError(kind, "\(what): \(lastErrorText)", file: path)
    }

    // MARK: Descriptors

    /// Opens `path` with `flags` (`O_CLOEXEC` added). Throws `io` naming the path.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o666) throws(SplatError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno == EINTR { continue }
            throw error("cannot open", path: path)
        }
    }

    /// Closes `fd`, ignoring the result (there is nothing useful to do on a failed close of a
    /// descriptor we only read, and writers flush with `fsync` first).
    public static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// What `fstat` says about an open descriptor.
    public static func status(of fd: Int32, path: String?) throws(SplatError) -> FileStatus {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw error("cannot stat", path: path) }
        return FileStatus(st)
    }

    /// What `stat` (following links, unless `followLinks` is false) says about `path`; nil when
    /// nothing is there (or a link dangles).
    public static func status(atPath path: String, followLinks: Bool = true) -> FileStatus? {
        var st = stat()
        let result = followLinks ? stat(path, &st) : lstat(path, &st)
        return result == 0 ? FileStatus(st) : nil
    }

    // MARK: Reading

    /// Reads exactly `count` bytes at `offset` into `buffer`, retrying short reads and EINTR.
    /// Fewer bytes available (the file shrank) → `truncated`.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int,
                            path: String?) throws(SplatError) {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw error("cannot read", path: path)
            }
            if n == 0 {
                throw SplatError(.truncated, "the file ended after \(offset + done) of \(offset + count) bytes (did it change while being read?)",
                                 file: path, offset: offset + done)
            }
            done += n
        }
    }

    /// Reads from the descriptor's position until end of stream or until `buffer` is full;
    /// returns the number of bytes read (fewer than asked only at end of stream).
    public static func readAvailable(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
                                     path: String?) throws(SplatError) -> Int {
        var done = 0
        while done < count {
            let n = Glibc.read(fd, buffer + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw error("cannot read", path: path)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    // MARK: Writing

    /// Writes all of `bytes`, retrying short writes and EINTR. A closed pipe (EPIPE; SIGPIPE is
    /// ignored by the command line) and a full disk are errors like any other.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String?) throws(SplatError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw error("cannot write", path: path)
            }
            offset += n
        }
    }

    /// Flushes `fd` to stable storage. Descriptors that cannot be synced (pipes, some special
    /// files: EINVAL/EROFS) are not an error: there is nothing to make durable.
    public static func sync(_ fd: Int32, path: String?) throws(SplatError) {
        if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
            throw error("cannot flush", path: path)
        }
    }

    /// Renames `from` over `to` (atomic within one file system).
    public static func rename(_ from: String, to: String) throws(SplatError) {
        guard Glibc.rename(from, to) == 0 else { throw error("cannot rename into place", path: to) }
    }

    /// Removes a file; a missing one is fine.
    public static func remove(_ path: String) { _ = unlink(path) }

    // MARK: Memory maps

    /// Reserves `bytes` of zeroed anonymous memory; the pages cost nothing until written.
    public static func mapAnonymous(_ bytes: Int, path: String?) throws(SplatError) -> UnsafeMutableRawPointer {
        let map = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let map, map != MAP_FAILED else {
            throw error("cannot reserve \(bytes) bytes", path: path, kind: .tooLarge)
        }
        return map
    }

    /// Releases a mapping made by `mapAnonymous`.
    public static func unmap(_ start: UnsafeMutableRawPointer, bytes: Int) { _ = munmap(start, bytes) }

    /// Hands whole pages back to the system; they read as zero afterwards.
    public static func discardPages(_ start: UnsafeMutableRawPointer, bytes: Int) {
        _ = madvise(start, bytes, MADV_DONTNEED)
    }

    /// Maps pages now (`MADV_POPULATE_WRITE`, Linux 5.14); false when the kernel cannot.
    public static func populatePages(_ start: UnsafeMutableRawPointer, bytes: Int) -> Bool {
        madvise(start, bytes, 23 /* MADV_POPULATE_WRITE */) == 0
    }

    /// The system's page size.
    public static let pageSize = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
}
