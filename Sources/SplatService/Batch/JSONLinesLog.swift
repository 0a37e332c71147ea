import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// A JSON Lines report written line by line, for services: each line goes to `<path>.partial`
/// with one `write(2)` as soon as its input finishes (so a supervisor can follow it, and after a
/// crash the partial file holds every finished line), and `commit()` flushes the file and renames
/// it to `path`. `path` therefore only ever appears complete; a `.partial` file left behind
/// means the run did not finish. A write that fails (a full disk) is cut back to the last whole
/// line and ends the log: later lines are refused, `commit()` throws, and the `.partial` file
/// keeps only complete lines — the final name never holds a torn report. Safe to use from
/// several threads.
public final class JSONLinesLog: @unchecked Sendable {
    public let path: String
    public let partialPath: String
    private let lock = NSLock()
    private var descriptor: Int32
    private var lines = 0
    /// Bytes of whole lines written.
    private var committedBytes = 0
    /// The write error that ended the log, if one did.
    private var broken: SplatError?

    /// Creates (or truncates) `<path>.partial`. Either name existing as something other than a
    /// regular file (a device, a FIFO — opening it would wait for a reader — or a folder) is
    /// refused, as is a missing folder.
    public init(path: String) throws(SplatError) {
        self.path = path
        partialPath = path + ".partial"
        try OutputPreflight.check(files: [path, partialPath], input: nil)
        descriptor = try FileIO.open(partialPath, O_WRONLY | O_CREAT | O_TRUNC)
    }

    deinit {
        if descriptor >= 0 { FileIO.close(descriptor) }
    }

    /// Lines appended so far.
    public var count: Int { lock.withLock { lines } }

    /// Appends `line` and a newline with a single write.
    public func append(_ line: String) throws(SplatError) {
        let bytes = Array((line + "\n").utf8)
        let failure: SplatError? = lock.withLock {
            if let broken { return broken }
            guard descriptor >= 0 else { return SplatError(.io, "the report is already closed", file: partialPath) }
            let written: SplatError? = bytes.withUnsafeBytes { raw in
                do throws(SplatError) { try FileIO.writeAll(descriptor, raw, path: partialPath); return nil } catch { return error }
            }
            if let written {
                // Part of the line may be on disk: cut the file back to the whole lines.
                _ = ftruncate(descriptor, off_t(committedBytes))
                _ = lseek(descriptor, off_t(committedBytes), SEEK_SET)
                broken = written
                return written
            }
            lines += 1
            committedBytes += bytes.count
            return nil
        }
        if let failure { throw failure }
    }

    /// Flushes, closes and renames `<path>.partial` to `path`.
    public func commit() throws(SplatError) {
        let failure: SplatError? = lock.withLock {
            if let broken {
                return SplatError(.io, "the report is incomplete (\(broken.message)); its complete lines are in \(partialPath)", file: partialPath)
            }
            guard descriptor >= 0 else { return SplatError(.io, "the report is already closed", file: partialPath) }
            defer { descriptor = -1 }
            let flushed: SplatError?
            do throws(SplatError) { try FileIO.sync(descriptor, path: partialPath); flushed = nil } catch { flushed = error }
            FileIO.close(descriptor)
            if let flushed { return flushed }
            do throws(SplatError) { try FileIO.rename(partialPath, to: path) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }
}
