import CDeflate

/// gzip, raw deflate and CRC-32 through libdeflate, for tests that build containers (gzip SPZ,
/// deflated zip entries) or read a seed's payload without going through the decoders they test.
public enum TestGzip {
    /// One gzip member.
    public static func gzip(_ data: [UInt8], level: Int32 = 6) -> [UInt8] {
        compress(data, level: level, gzip: true)
    }

    /// A whole one-member gzip file, sized by its trailer's ISIZE; nil when it does not inflate
    /// to exactly that. A damaged file's ISIZE can be any number, so `maxBytes` bounds what it
    /// may make this allocate.
    public static func gunzip(_ data: [UInt8], maxBytes: Int = .max) -> [UInt8]? {
        guard data.count >= 18 else { return nil }
        let n = data.count
        let size = Int(data[n - 4]) | Int(data[n - 3]) << 8 | Int(data[n - 2]) << 16 | Int(data[n - 1]) << 24
        guard size <= maxBytes else { return nil }
        return decompress(data, size: size, gzip: true)
    }

    /// A raw deflate stream, as a zip entry of method 8 holds.
    public static func deflate(_ data: [UInt8], level: Int32 = 9) -> [UInt8] {
        compress(data, level: level, gzip: false)
    }

    /// A raw deflate stream that must inflate to exactly `size` bytes; nil otherwise.
    public static func inflate(_ data: some Collection<UInt8>, size: Int) -> [UInt8]? {
        decompress(Array(data), size: size, gzip: false)
    }

    /// CRC-32 (IEEE), as gzip trailers and zip entries carry it.
    public static func crc32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBytes { UInt32(truncatingIfNeeded: libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }

    private static func compress(_ data: [UInt8], level: Int32, gzip: Bool) -> [UInt8] {
        let c = libdeflate_alloc_compressor(level)!
        defer { libdeflate_free_compressor(c) }
        let bound = gzip ? libdeflate_gzip_compress_bound(c, data.count) : libdeflate_deflate_compress_bound(c, data.count) + 16
        var out = [UInt8](repeating: 0, count: bound)
        let n = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                gzip ? libdeflate_gzip_compress(c, src.baseAddress, src.count, dst.baseAddress, dst.count)
                    : libdeflate_deflate_compress(c, src.baseAddress, src.count, dst.baseAddress, dst.count)
            }
        }
        return Array(out[0..<n])
    }

    private static func decompress(_ data: [UInt8], size: Int, gzip: Bool) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        let d = libdeflate_alloc_decompressor()!
        defer { libdeflate_free_decompressor(d) }
        let status = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                gzip ? libdeflate_gzip_decompress(d, src.baseAddress, src.count, dst.baseAddress, dst.count, nil)
                    : libdeflate_deflate_decompress(d, src.baseAddress, src.count, dst.baseAddress, dst.count, nil)
            }
        }
        return status == LIBDEFLATE_SUCCESS ? out : nil
    }
}
