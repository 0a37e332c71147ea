import Foundation
import SplatCore

/// How the image readers reach their bytes: a regular file is read into owned memory (through
/// `FileIO`, like every input) and handed to a typed-throwing decoder; untyped errors from
/// byte containers become `corrupt`.
enum ImageFileBytes {
    /// Largest image file read: the pixel budget's RGBA bytes, far above any PNG or WebP of it.
    static let maxFileBytes = 4 * ImageLimits.maxPixels

    static func withContents<T>(ofFile path: String,
                                _ decode: (UnsafeRawBufferPointer) throws(SplatError) -> T) throws(SplatError) -> T {
        let owned = try FileIO.readRegularFile(path, maxBytes: maxFileBytes)
        return try withExtendedLifetime(owned) { () throws(SplatError) -> T in try decode(owned.bytes) }
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

/// An image reader (`PNGReader`, `AnimatedWebPReader`): it decodes bytes in memory, and reads a
/// file or a byte array through `ImageFileBytes` the same way as every other reader.
public protocol ImageFileReader {
    associatedtype Decoded
    /// Decodes bytes held in memory. `file` only labels errors; `maxPixels` caps the pixels decoded.
    static func read(bytes: UnsafeRawBufferPointer, file: String?, maxPixels: Int) throws(SplatError) -> Decoded
}

extension ImageFileReader {
    /// Reads and decodes the file at `path`.
    public static func read(path: String, maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> Decoded {
        try ImageFileBytes.withContents(ofFile: path) { (raw: UnsafeRawBufferPointer) throws(SplatError) -> Decoded in
            try read(bytes: raw, file: path, maxPixels: maxPixels)
        }
    }

    /// Decodes bytes held in memory.
    public static func read(bytes: [UInt8], file: String? = nil, maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> Decoded {
        try ImageFileBytes.withBytes(bytes, file: file) { (raw: UnsafeRawBufferPointer) throws(SplatError) -> Decoded in
            try read(bytes: raw, file: file, maxPixels: maxPixels)
        }
    }
}
