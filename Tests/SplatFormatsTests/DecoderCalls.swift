import Foundation
import SplatCore

/// Decodes bytes with a decoder entry point, turning the closure-based buffer access into a
/// typed throw.
func withTestBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(SplatError) -> T) throws(SplatError) -> T {
    let result: Result<T, SplatError> = bytes.withUnsafeBytes { raw in Result { () throws(SplatError) in try body(raw) } }
    return try result.get()
}

/// The kind of error `body` throws, or nil when it succeeds.
func thrownKind<T>(_ body: () throws(SplatError) -> T) -> SplatErrorKind? {
    do { _ = try body(); return nil } catch { return error.kind }
}

func readFixtureBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
