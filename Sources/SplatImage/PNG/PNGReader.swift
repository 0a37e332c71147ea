import Foundation
import CPNG
import SplatCore

/// Reads PNG files through libpng's simplified API into 8-bit RGB or RGBA.
///
/// Colour type is kept as stored where it fits an `ImageBuffer`: RGB stays RGB, RGBA stays RGBA,
/// gray becomes RGB, gray+alpha becomes RGBA, a palette becomes RGB or RGBA (with tRNS).
/// 16-bit samples are reduced to 8 bits by libpng. Note libpng's gamma handling: a file whose
/// gAMA chunk is far from sRGB, or a 16-bit file with no gAMA (libpng assumes linear), is
/// converted to sRGB-encoded 8-bit values; plain 8-bit files without colour chunks are copied.
public enum PNGReader: ImageFileReader {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes PNG bytes held in memory. `file` only labels errors.
    public static func read(bytes: UnsafeRawBufferPointer, file: String? = nil, maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> ImageBuffer {
        guard bytes.count >= signature.count, let base = bytes.baseAddress,
              zip(bytes.prefix(signature.count), signature).allSatisfy({ $0 == $1 }) else {
            throw SplatError(.badMagic, "not a PNG: the 8-byte PNG signature is missing", file: file, offset: 0)
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        // Freeing is idempotent (opaque is cleared), and libpng frees on its own after errors
        // and after finish_read; this covers the paths that leave it allocated.
        defer { png_image_free(&image) }

        guard png_image_begin_read_from_memory(&image, base, bytes.count) != 0 else {
            throw SplatError(.corrupt, "libpng cannot read the header: \(libpngMessage(&image))", file: file)
        }
        let hasAlpha = image.format & UInt32(PNG_FORMAT_FLAG_ALPHA) != 0
        let channels = hasAlpha ? 4 : 3
        let width = Int(image.width), height = Int(image.height)
        let byteCount = try ImageLimits.checkedByteCount(width: width, height: height, channels: channels,
                                                         maxPixels: maxPixels, what: "PNG image", file: file)
        guard let rowStride = Int32(exactly: width * channels) else {
            throw SplatError(.tooLarge, "PNG row of \(width) pixels is too long for libpng", file: file)
        }
        image.format = UInt32(PNG_FORMAT_FLAG_COLOR) | (hasAlpha ? UInt32(PNG_FORMAT_FLAG_ALPHA) : 0)

        var failure: String? = nil
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            if png_image_finish_read(&image, nil, buffer.baseAddress, rowStride, nil) != 0 {
                initialized = byteCount
            } else {
                // Zero-fill so the array is valid even though it is thrown away.
                buffer.initialize(repeating: 0)
                initialized = byteCount
                failure = libpngMessage(&image)
            }
        }
        if let failure {
            throw SplatError(.corrupt, "libpng cannot decode the image data: \(failure)", file: file)
        }
        return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The NUL-terminated message libpng leaves in the image structure.
    static func libpngMessage(_ image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw -> String in
            let chars = raw.prefix { $0 != 0 }
            return String(decoding: chars, as: UTF8.self)
        }
        return text.isEmpty ? "unknown libpng error" : text
    }
}
