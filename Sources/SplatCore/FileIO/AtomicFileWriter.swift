import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so a reader never sees a partial one: the bytes go to a temporary file in the
/// destination's folder, which is flushed and then renamed over the destination. After an
/// error (or a kill before the rename) the destination is untouched and the temporary is removed
/// when it can be.
public enum AtomicFileWriter {
    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(SplatError) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let base = (dir.isEmpty ? "." : dir) + "/.\(url.lastPathComponent).tmp-XXXXXX"
        var template = Array(base.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw SplatError(.io, "cannot create a temporary file beside \(path): \(String(cString: strerror(errno)))", file: path)
        }
        let tmpPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var ok = false
        defer {
            if !ok { unlink(tmpPath) }
        }
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                throw SplatError(.io, "cannot write \(path): \(reason)", file: path)
            }
            offset += n
        }
        // Files made by mkstemp are 0600; outputs should follow the umask like any other file.
        let mask = umask(0); umask(mask)
        fchmod(fd, 0o666 & ~mask)
        if fsync(fd) != 0 && errno != EINVAL {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw SplatError(.io, "cannot flush \(path): \(reason)", file: path)
        }
        close(fd)
        guard rename(tmpPath, path) == 0 else {
            throw SplatError(.io, "cannot rename into \(path): \(String(cString: strerror(errno)))", file: path)
        }
        ok = true
    }

    /// Writes `data` to `path` atomically.
    public static func write(_ data: Data, to path: String) throws(SplatError) {
        do {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in try write(raw, to: path) }
        } catch let error as SplatError { throw error } catch { throw SplatError(.io, "\(error)", file: path) }
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(_ bytes: [UInt8], to path: String) throws(SplatError) {
        do {
            try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in try write(raw, to: path) }
        } catch let error as SplatError { throw error } catch { throw SplatError(.io, "\(error)", file: path) }
    }
}
