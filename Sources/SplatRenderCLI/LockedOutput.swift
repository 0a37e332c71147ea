import Foundation

/// Serialises writes to another sink, for output from several threads (a batch's workers).
final class LockedOutput: OutputSink, @unchecked Sendable {
    let base: OutputSink
    private let lock = NSLock()

    init(_ base: OutputSink) { self.base = base }

    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        lock.withLock { base.write(bytes) }
    }

    var isTerminal: Bool { base.isTerminal }
    var writeFailure: String? { lock.withLock { base.writeFailure } }
}
