import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes files so a reader never sees a partial one: the bytes go to a temporary file in the
/// destination's folder, which is flushed and then renamed over the destination. After an
/// error (or a kill before the rename) the destination is untouched and the temporary is removed
/// when it can be. Temporaries are named `.<name>.tmp-<random>` so a later run can recognise
/// (and clean up) what a killed one left (`temporaryPrefix`).
public enum AtomicFileWriter {
    /// `.<name>.tmp-`: the start of every temporary this writer makes for `name`.
    public static func temporaryPrefix(for name: String) -> String { ".\(name).tmp-" }

    /// Writes `bytes` to `path` atomically. An existing `path` that is not a regular file (or a
    /// link) is refused, not replaced: the rename would put a file in place of a device, a FIFO
    /// or a socket (as root, `/dev/null` itself).
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(SplatError) {
        if let existing = FileIO.status(atPath: path, followLinks: false), existing.kind != .regular, existing.kind != .symbolicLink {
            throw SplatError(.io, "\(path) exists and is not a regular file (a \(existing.kind.rawValue)); refusing to replace it", file: path)
        }
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let base = (dir.isEmpty ? "." : dir) + "/" + temporaryPrefix(for: url.lastPathComponent) + "XXXXXX"
        var template = Array(base.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw FileIO.error("cannot create a temporary file beside \(path)", path: path)
        }
        let tmpPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var ok = false
        defer {
            if !ok { FileIO.remove(tmpPath) }
        }
        do throws(SplatError) {
            try FileIO.writeAll(fd, bytes, path: path)
            // Files made by mkstemp are 0600; outputs should follow the umask like any other file.
            let mask = umask(0); umask(mask)
            fchmod(fd, 0o666 & ~mask)
            try FileIO.sync(fd, path: path)
        } catch {
            FileIO.close(fd)
            throw error
        }
        FileIO.close(fd)
        try FileIO.rename(tmpPath, to: path)
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
