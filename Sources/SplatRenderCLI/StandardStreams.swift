import Foundation
import SplatCore
import SplatService
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: a real file descriptor in the executable, a buffer in tests.
public protocol OutputSink: AnyObject {
    /// Writes all of `bytes`; returns false when the destination refused them.
    @discardableResult
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool
    /// Whether the destination is a terminal (progress lines are shown there by default).
    var isTerminal: Bool { get }
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

/// Writes to a file descriptor (1 and 2 in the executable), retrying short writes.
public final class FileDescriptorOutput: OutputSink {
    public let descriptor: Int32

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public var isTerminal: Bool { isatty(descriptor) != 0 }

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        do throws(SplatError) {
            try FileIO.writeAll(descriptor, bytes, path: nil)
            return true
        } catch {
            return false
        }
    }
}

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
}

/// Collects everything written, for tests.
public final class CapturedOutput: OutputSink {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        self.bytes.append(contentsOf: bytes)
        return true
    }

    /// The bytes as UTF-8 text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Where `-` as an input path reads from.
public struct InputSource {
    /// Reads the whole stream.
    public let readAll: () -> [UInt8]

    public init(readAll: @escaping () -> [UInt8]) { self.readAll = readAll }

    /// The process's standard input.
    public static var standardInput: InputSource {
        InputSource { [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
    }

    /// Fixed bytes, for tests.
    public static func bytes(_ bytes: [UInt8]) -> InputSource {
        InputSource { bytes }
    }
}
