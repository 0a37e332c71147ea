import SplatCore

/// The RIFF layer of a still WebP: reads the chunks of a file libwebp wrote, and assembles the
/// extended form (VP8X, ALPH, VP8) from a colour bitstream and an alpha stream encoded apart.
///
/// libwebp encodes a lossy picture's alpha plane inside `WebPEncode` with a lossless encoder
/// that has no progress hook, so a cancelled encode of a large transparent image went on for
/// seconds after its caller had returned (8 s of one core for an 8192² thumbnail at the default
/// effort). `WebPWriter` therefore encodes the two planes itself, each with the hook, and this
/// type puts them together as the container specification lays out.
enum WebPContainer {
    /// One chunk: its four-character code and payload (without the padding byte).
    struct Chunk: Equatable {
        var fourCC: String
        var payload: ArraySlice<UInt8>
    }

    /// The chunks of a RIFF/WEBP file, in order. Throws `.io` for anything but a well-formed
    /// container: these are files libwebp just wrote, so a failure is a library fault.
    static func chunks(of file: [UInt8]) throws(SplatError) -> [Chunk] {
        guard file.count >= 12, Array(file[0..<4]) == Array("RIFF".utf8), Array(file[8..<12]) == Array("WEBP".utf8) else {
            throw SplatError(.io, "libwebp wrote no RIFF/WEBP header")
        }
        let end = min(file.count, 8 + Int(littleEndian32(file, at: 4)))
        var chunks: [Chunk] = []
        var offset = 12
        while offset + 8 <= end {
            let size = Int(littleEndian32(file, at: offset + 4))
            let start = offset + 8
            guard size <= end - start else {
                throw SplatError(.io, "libwebp wrote a chunk of \(size) bytes past the end of its file", offset: offset)
            }
            chunks.append(Chunk(fourCC: String(decoding: file[offset..<offset + 4], as: UTF8.self), payload: file[start..<start + size]))
            offset = start + size + (size & 1)
        }
        return chunks
    }

    /// A lossless (VP8L) bitstream's image stream: what follows its 5-byte header (signature
    /// 0x2F, 14-bit width − 1 and height − 1, alpha and version bits), which ends on a byte
    /// boundary. This is the form an ALPH chunk holds, with alpha in the green channel.
    static func imageStream(ofLossless bitstream: ArraySlice<UInt8>) throws(SplatError) -> ArraySlice<UInt8> {
        guard bitstream.count > 5, bitstream.first == 0x2F else {
            throw SplatError(.io, "libwebp wrote no lossless bitstream signature")
        }
        return bitstream.dropFirst(5)
    }

    /// A still image with alpha: VP8X (alpha flag and canvas size), ALPH (lossless, unfiltered,
    /// no preprocessing), then the lossy VP8 bitstream of the colour.
    static func stillImage(width: Int, height: Int, alphaStream: ArraySlice<UInt8>, colour vp8: ArraySlice<UInt8>) -> [UInt8] {
        var vp8x = [UInt8](repeating: 0, count: 10)
        vp8x[0] = 0x10 // alpha
        put24(&vp8x, at: 4, UInt32(width - 1))
        put24(&vp8x, at: 7, UInt32(height - 1))
        // ALPH header byte: compression 1 (lossless) in the low two bits; filtering and preprocessing 0.
        let alph = [UInt8(1)] + alphaStream
        var file = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        for (fourCC, payload) in [("VP8X", vp8x[...]), ("ALPH", alph[...]), ("VP8 ", vp8)] {
            file += Array(fourCC.utf8)
            file += littleEndianBytes(UInt32(payload.count))
            file += payload
            if payload.count & 1 == 1 { file.append(0) }
        }
        let riffSize = littleEndianBytes(UInt32(file.count - 8))
        file.replaceSubrange(4..<8, with: riffSize)
        return file
    }

    private static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    private static func littleEndianBytes(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }

    private static func put24(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        bytes[offset] = UInt8(value & 0xFF)
        bytes[offset + 1] = UInt8(value >> 8 & 0xFF)
        bytes[offset + 2] = UInt8(value >> 16 & 0xFF)
    }
}
