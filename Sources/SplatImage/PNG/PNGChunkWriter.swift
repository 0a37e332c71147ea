import CDeflate

/// Lays out a PNG file: the signature, then chunks of length, type, data and the CRC-32 of type
/// and data (PNG specification section 5.3).
struct PNGChunkWriter {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private(set) var bytes: [UInt8]

    /// Starts a file with the signature, reserving `capacity` bytes in all.
    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes += Self.signature
    }

    /// Bytes a chunk with `dataCount` bytes of data takes.
    static func size(dataCount: Int) -> Int { 12 + dataCount }

    /// The chunk CRC of `type` (four ASCII letters) followed by `data`; computed apart from
    /// `append` so bands can checksum their own chunks on the core that compressed them.
    static func crc(type: StaticString, data: UnsafeRawBufferPointer) -> UInt32 {
        let typeCRC = libdeflate_crc32(0, type.utf8Start, 4)
        return libdeflate_crc32(typeCRC, data.baseAddress, data.count)
    }

    /// Appends one chunk of `type` (four ASCII letters); `crc` when the caller already has it.
    mutating func append(type: StaticString, data: UnsafeRawBufferPointer, crc: UInt32? = nil) {
        appendBigEndian(UInt32(data.count))
        bytes.append(contentsOf: UnsafeBufferPointer(start: type.utf8Start, count: 4))
        bytes.append(contentsOf: data)
        appendBigEndian(crc ?? Self.crc(type: type, data: data))
    }

    mutating func append(type: StaticString, data: [UInt8]) {
        data.withUnsafeBytes { append(type: type, data: $0) }
    }

    /// IHDR of an 8-bit, non-interlaced RGB (colour type 2) or RGBA (type 6) image.
    mutating func appendHeader(width: Int, height: Int, hasAlpha: Bool) {
        var data: [UInt8] = []
        for value in [UInt32(width), UInt32(height)] { data += Self.bigEndian(value) }
        data += [8, hasAlpha ? 6 : 2, 0, 0, 0]
        append(type: "IHDR", data: data)
    }

    /// sRGB with perceptual intent, as libpng's simplified writer added it: the values are
    /// display-referred sRGB (`rendering.md` section 10).
    mutating func appendSRGB() { append(type: "sRGB", data: [0]) }

    mutating func appendEnd() { append(type: "IEND", data: []) }

    private mutating func appendBigEndian(_ value: UInt32) { bytes += Self.bigEndian(value) }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
