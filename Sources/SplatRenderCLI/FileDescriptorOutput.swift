import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes to a file descriptor (1 and 2 in the executable), retrying short writes, and keeps
/// the first failure (a closed pipe — SIGPIPE is ignored — or a full disk) for the exit status.
public final class FileDescriptorOutput: OutputSink, @unchecked Sendable {
    public let descriptor: Int32
    private var failure: String?

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public var isTerminal: Bool { isatty(descriptor) != 0 }
    public var writeFailure: String? { failure }

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // After one failure the stream is gone: say nothing more into it.
        guard failure == nil else { return false }
        do throws(SplatError) {
            try FileIO.writeAll(descriptor, bytes, path: nil)
            return true
        } catch {
            failure = FileIO.lastErrorText
            return false
        }
    }
}
