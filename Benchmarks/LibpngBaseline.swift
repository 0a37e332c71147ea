import CPNG
import SplatCore

/// libpng's simplified writer at its default settings (all row filters with its heuristic,
/// zlib level 6): what `PNGWriter` used before it wrote through libdeflate, kept here as the
/// size reference (ours should stay within 10 %) and a second time reference.
enum LibpngBaseline {
    static func encode(_ image: ImageBuffer) throws -> [UInt8] {
        var png = png_image()
        png.version = UInt32(PNG_IMAGE_VERSION)
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = UInt32(PNG_FORMAT_FLAG_COLOR) | (image.hasAlpha ? UInt32(PNG_FORMAT_FLAG_ALPHA) : 0)
        defer { png_image_free(&png) }
        let rowBytes = image.width * image.channels
        let data = (rowBytes + 1) * image.height
        // PNG_IMAGE_PNG_SIZE_MAX (a macro): the stored-block worst case plus chunk overhead.
        var capacity = data + data / 8 + data / 64 + 1024 + 12 * (data / Int(PNG_ZBUF_SIZE) + 1)
        var out = [UInt8](repeating: 0, count: capacity)
        let ok = out.withUnsafeMutableBytes { o in
            image.pixels.withUnsafeBytes { p in
                png_image_write_to_memory(&png, o.baseAddress, &capacity, 0, p.baseAddress, Int32(rowBytes), nil)
            }
        }
        guard ok != 0 else { throw BenchmarkError("libpng could not encode a \(image.width)×\(image.height) image") }
        return Array(out.prefix(capacity))
    }
}
