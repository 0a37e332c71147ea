import CPNG
import SplatCore

/// Encodes 8-bit RGB and RGBA images as PNG through libpng's simplified write API.
///
/// The output carries an sRGB chunk (libpng's default for 8-bit simplified writes), which matches
/// `rendering.md` section 10: the values are display-referred and written as they are.
public enum PNGWriter {
    /// The PNG bytes of `image`. `fast` asks libpng for speed over size (for intermediate files).
    public static func encode(_ image: ImageBuffer, fast: Bool = false) throws(SplatError) -> [UInt8] {
        let rowBytes = try checkedRowBytes(image)
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_FLAG_COLOR) | (image.hasAlpha ? UInt32(PNG_FORMAT_FLAG_ALPHA) : 0)
        png.flags = fast ? UInt32(PNG_IMAGE_FLAG_FAST) : 0
        defer { png_image_free(&png) }

        // One compression pass into a buffer of libpng's documented worst-case size, instead of a
        // sizing pass with NULL followed by the real one. If a zlib other than the one the bound
        // was made for needs more, libpng reports the size it needs and we go again once.
        var capacity = worstCaseSize(rowBytes: rowBytes, height: image.height)
        for _ in 0..<2 {
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
            defer { scratch.deallocate() }
            var written = capacity
            let ok = image.pixels.withUnsafeBytes { pixels in
                png_image_write_to_memory(&png, scratch.baseAddress, &written, 0, pixels.baseAddress, Int32(rowBytes), nil)
            }
            if ok != 0 {
                return Array(scratch.prefix(written))
            }
            guard written > capacity else {
                throw SplatError(.io, "libpng cannot encode the image: \(PNGReader.libpngMessage(&png))")
            }
            capacity = written
        }
        throw SplatError(.io, "libpng kept asking for a larger output buffer (\(capacity) bytes)")
    }

    /// Encodes `image` and writes it to `path` atomically (temporary file + rename): a reader never
    /// sees a partial PNG and an existing file survives a failed write. "-" is not special here.
    public static func write(_ image: ImageBuffer, to path: String, fast: Bool = false) throws(SplatError) {
        let bytes: [UInt8]
        do {
            bytes = try encode(image, fast: fast)
        } catch {
            throw error.inFile(path)
        }
        try AtomicFileWriter.write(bytes, to: path)
    }

    /// Bytes per row, after checking the size is one libpng can take and within the pixel budget.
    static func checkedRowBytes(_ image: ImageBuffer) throws(SplatError) -> Int {
        _ = try ImageLimits.checkedByteCount(width: image.width, height: image.height, channels: image.channels,
                                             what: "PNG image")
        // libpng's default user limit on either side.
        guard image.width <= Int(PNG_USER_WIDTH_MAX), image.height <= Int(PNG_USER_HEIGHT_MAX) else {
            throw SplatError(.tooLarge, "PNG image is \(image.width)×\(image.height); libpng accepts at most \(PNG_USER_WIDTH_MAX) pixels per side")
        }
        guard image.pixels.count == image.width * image.height * image.channels else {
            throw SplatError(.invalidArgument, "pixel buffer holds \(image.pixels.count) bytes, expected \(image.width * image.height * image.channels)")
        }
        return image.width * image.channels
    }

    /// `PNG_IMAGE_PNG_SIZE_MAX` from png.h (a macro, so rebuilt here), plus room for the sRGB chunk.
    static func worstCaseSize(rowBytes: Int, height: Int) -> Int {
        let data = (rowBytes + 1) * height // a filter byte per row
        let compressed = data + (data + 7) / 8 + (data + 63) / 64 + 11
        let zbufSize = Int(PNG_ZBUF_SIZE)
        return 8 + 25 + 16 + 44 + 12 + 12 + 12 * (compressed / zbufSize) + compressed + 64
    }
}
