/// Collects everything written, for tests; `failing` makes every write fail, like a full disk.
public final class CapturedOutput: OutputSink {
    public private(set) var bytes: [UInt8] = []
    private let failing: Bool
    private var failed = false
    private let terminal: Bool

    public init(failing: Bool = false, terminal: Bool = false) {
        self.failing = failing
        self.terminal = terminal
    }

    public var isTerminal: Bool { terminal }
    public var writeFailure: String? { failed ? "No space left on device" : nil }

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if failing {
            failed = true
            return false
        }
        self.bytes.append(contentsOf: bytes)
        return true
    }

    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
