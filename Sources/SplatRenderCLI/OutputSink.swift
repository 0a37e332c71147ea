/// Where a command writes: a real file descriptor in the executable, a buffer in tests.
public protocol OutputSink: AnyObject {
    /// Writes all of `bytes`; returns false when the destination refused them.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Whether the destination is a terminal (progress lines are shown there by default; binary
    /// images are refused there).
    var isTerminal: Bool { get }
    /// Why the first refused write failed, nil while every write succeeded: a result that
    /// never reached its reader is an error (exit 74), not a success.
    var writeFailure: String? { get }
}

extension OutputSink {
    public var isTerminal: Bool { false }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { write($0) }
    }

    @discardableResult
    public func write(_ text: String) -> Bool {
        write(Array(text.utf8))
    }
}
