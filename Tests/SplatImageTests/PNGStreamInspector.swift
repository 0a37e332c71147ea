import CZlib
import SplatCore

/// Takes a PNG apart independently of libpng: chunk list with CRCs checked, and the IDAT data
/// inflated by zlib (which verifies the Adler-32 trailer), so tests can see the filter bytes.
struct PNGStreamInspector {
    struct Chunk {
        var type: String
        var data: [UInt8]
        var crcMatches: Bool
    }

    let chunks: [Chunk]

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 8, Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
            throw SplatError(.badMagic, "no PNG signature")
        }
        var chunks: [Chunk] = []
        var p = 8
        while p + 12 <= bytes.count {
            let length = Self.bigEndian(bytes, p)
            guard p + 12 + length <= bytes.count else { throw SplatError(.truncated, "chunk at \(p) runs past the end") }
            let type = String(decoding: bytes[p + 4..<p + 8], as: UTF8.self)
            let data = Array(bytes[p + 8..<p + 8 + length])
            let crc = bytes[p + 4..<p + 8 + length].withContiguousStorageIfAvailable { crc32(0, $0.baseAddress, UInt32($0.count)) } ?? 0
            chunks.append(Chunk(type: type, data: data, crcMatches: UInt(Self.bigEndian(bytes, p + 8 + length)) == crc))
            p += 12 + length
        }
        guard p == bytes.count else { throw SplatError(.corrupt, "\(bytes.count - p) bytes after the last chunk") }
        self.chunks = chunks
    }

    static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
    }

    var types: [String] { chunks.map(\.type) }

    /// The IDAT chunks' data, joined.
    var zlibStream: [UInt8] { chunks.filter { $0.type == "IDAT" }.flatMap(\.data) }

    /// The filtered rows inflated by zlib's `uncompress`, which fails on a bad Adler-32.
    func inflated(expectedCount: Int) throws -> [UInt8] {
        let stream = zlibStream
        var out = [UInt8](repeating: 0, count: expectedCount + 1)
        var length = UInt(out.count)
        let status = out.withUnsafeMutableBufferPointer { o in
            stream.withUnsafeBufferPointer { uncompress(o.baseAddress, &length, $0.baseAddress, UInt($0.count)) }
        }
        guard status == Z_OK else { throw SplatError(.corrupt, "zlib uncompress returned \(status)") }
        return Array(out.prefix(Int(length)))
    }

    /// The filter type byte of every row of an image with `rowBytes` bytes per row.
    func filterTypes(rowBytes: Int, height: Int) throws -> [UInt8] {
        let rows = try inflated(expectedCount: (rowBytes + 1) * height)
        guard rows.count == (rowBytes + 1) * height else { throw SplatError(.corrupt, "inflated \(rows.count) bytes") }
        return (0..<height).map { rows[$0 * (rowBytes + 1)] }
    }
}
