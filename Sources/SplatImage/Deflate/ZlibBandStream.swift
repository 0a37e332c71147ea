import CDeflate
import CZlib
import SplatCore

/// One zlib stream (RFC 1950) made of bands compressed independently — on any core, in any
/// order, each a short uninterruptible piece of work — the way pigz joins its blocks.
///
/// libdeflate only compresses whole buffers, and every stream it writes closes with a final
/// block. For every band but the last, `compressBand` finds that block
/// (`DeflateStreamScanner`), clears its final bit and appends an empty stored block (zlib's
/// `Z_SYNC_FLUSH` marker), so the band ends on a byte boundary and the next band's stream may
/// follow it byte for byte. Each band starts with an empty window, so matches never reach back
/// across a band: with bands of a few hundred kilobytes that costs well under 1 % in size.
enum ZlibBandStream {
    /// The two header bytes: deflate with a 32 KiB window, and libdeflate's level hint.
    static func header(level: Int) -> [UInt8] {
        let hint = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var value = (0x78 << 8) | (hint << 6)
        value |= 31 - value % 31
        return [UInt8(value >> 8), UInt8(value & 0xFF)]
    }

    /// The four trailer bytes: the Adler-32 of all uncompressed bytes, big-endian.
    static func trailer(adler: UInt32) -> [UInt8] {
        [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
    }

    /// The Adler-32 of `first` followed by `second`, given each one's checksum and the second's length.
    static func combine(adler first: UInt32, with second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: adler32_combine(UInt(first), UInt(second), secondLength))
    }

    /// Adler-32 of `bytes` on its own (libdeflate's SIMD implementation).
    static func adler32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        libdeflate_adler32(1, bytes.baseAddress, bytes.count)
    }

    /// The raw deflate bytes of one band. Unless `isLast`, the band ends without a final block,
    /// with the sync marker, so another band can follow.
    static func compressBand(_ input: UnsafeRawBufferPointer, isLast: Bool,
                             compressor: DeflateCompressor) throws(SplatError) -> [UInt8] {
        let bound = libdeflate_deflate_compress_bound(compressor.handle, input.count)
        // Room for the marker: one byte more of padding at most, then LEN and NLEN.
        let capacity = bound + 5
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
        defer { scratch.deallocate() }
        var written = libdeflate_deflate_compress(compressor.handle, input.baseAddress, input.count, scratch.baseAddress, bound)
        guard written > 0 else {
            throw SplatError(.io, "libdeflate could not compress \(input.count) bytes into its own bound of \(bound)")
        }
        if !isLast {
            let block = try DeflateStreamScanner.finalBlock(of: UnsafeRawBufferPointer(rebasing: scratch[0..<written]))
            scratch[block.headerBit >> 3] &= ~(1 << UInt8(block.headerBit & 7))
            // Zero the bits after the end-of-block code; they become the stored block's BFINAL = 0,
            // BTYPE = 00 and its padding to the byte boundary.
            if block.endBit & 7 != 0 { scratch[block.endBit >> 3] &= UInt8(1 << (block.endBit & 7) - 1) }
            let storedData = (block.endBit + 3 + 7) / 8
            if storedData > written { scratch[written] = 0 }
            scratch[storedData] = 0
            scratch[storedData + 1] = 0
            scratch[storedData + 2] = 0xFF
            scratch[storedData + 3] = 0xFF
            written = storedData + 4
        }
        return Array(scratch.prefix(written))
    }
}

/// A libdeflate compressor at one level; not thread-safe, so each band borrows one of its own.
final class DeflateCompressor {
    let handle: OpaquePointer
    let level: Int

    init(level: Int) throws(SplatError) {
        guard let handle = libdeflate_alloc_compressor(Int32(level)) else {
            throw SplatError(.io, "libdeflate could not allocate a level-\(level) compressor (out of memory)")
        }
        self.handle = handle
        self.level = level
    }

    deinit { libdeflate_free_compressor(handle) }
}
