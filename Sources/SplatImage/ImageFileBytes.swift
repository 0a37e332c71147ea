import Foundation
import SplatCore

/// How the image readers reach their bytes: a file is memory-mapped and handed to a typed-throwing
/// decoder; Foundation's untyped errors become `io` (file) or `corrupt` (bytes).
enum ImageFileBytes {
    static func withContents<T>(ofFile path: String,
                                _ decode: (UnsafeRawBufferPointer) throws(SplatError) -> T) throws(SplatError) -> T {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
        } catch {
            throw SplatError(.io, "cannot read \(path): \(error.localizedDescription)", file: path)
        }
        return try withBytes(data, file: path, decode)
    }

    static func withBytes<T, Bytes: ContiguousBytes>(_ bytes: Bytes, file: String?,
                                                     _ decode: (UnsafeRawBufferPointer) throws(SplatError) -> T) throws(SplatError) -> T {
        do {
            return try bytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws(SplatError) -> T in try decode(raw) }
        } catch let error as SplatError {
            throw error
        } catch {
            throw SplatError(.corrupt, "\(error)", file: file)
        }
    }
}
