import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// A JSON Lines report written line by line, for services: each line goes to `<path>.partial`
/// with one `write(2)` as soon as its input finishes (so a supervisor can follow it, and after a
/// crash the partial file holds every finished line), and `commit()` flushes the file and renames
/// it to `path`. `path` therefore only ever appears complete; a `.partial` file left behind
/// means the run did not finish. Safe to use from several threads.
public final class JSONLinesLog: @unchecked Sendable {
    public let path: String
    public let partialPath: String
    private let lock = NSLock()
    private var descriptor: Int32
    private var lines = 0

    /// Creates (or truncates) `<path>.partial`.
    public init(path: String) throws(SplatError) {
        self.path = path
        partialPath = path + ".partial"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw SplatError(.io, "cannot create the report: \(String(cString: strerror(errno)))", file: partialPath)
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Lines appended so far.
    public var count: Int { lock.withLock { lines } }

    /// Appends `line` and a newline with a single write.
    public func append(_ line: String) throws(SplatError) {
        let bytes = Array((line + "\n").utf8)
        let failure: SplatError? = lock.withLock {
            guard descriptor >= 0 else { return SplatError(.io, "the report is already closed", file: partialPath) }
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    return SplatError(.io, "cannot write the report: \(String(cString: strerror(errno)))", file: partialPath)
                }
                offset += n
            }
            lines += 1
            return nil
        }
        if let failure { throw failure }
    }

    /// Flushes, closes and renames `<path>.partial` to `path`.
    public func commit() throws(SplatError) {
        let failure: SplatError? = lock.withLock {
            guard descriptor >= 0 else { return SplatError(.io, "the report is already closed", file: partialPath) }
            defer { descriptor = -1 }
            if fsync(descriptor) != 0 && errno != EINVAL {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                return SplatError(.io, "cannot flush the report: \(reason)", file: partialPath)
            }
            close(descriptor)
            guard rename(partialPath, path) == 0 else {
                return SplatError(.io, "cannot rename the report into place: \(String(cString: strerror(errno)))", file: path)
            }
            return nil
        }
        if let failure { throw failure }
    }
}
