import SplatCore

/// Walks a raw deflate stream (RFC 1951) without producing output, to find where its final
/// block begins and where that block ends. libdeflate compresses a whole buffer into one stream
/// that always closes with a final block; `DeflateBandJoiner` clears that block's final bit so the
/// next band's stream can follow it. Finding the bit means decoding every Huffman symbol up to it,
/// since blocks have no length field — about a tenth of the cost of compressing the band.
enum DeflateStreamScanner {
    /// Bit positions (from bit 0 of byte 0) in a stream that ends with a final block.
    struct FinalBlock: Equatable {
        /// The final block's BFINAL bit.
        var headerBit: Int
        /// The bit just after the final block's end-of-block code.
        var endBit: Int
    }

    /// Scans `stream`, which must be exactly one deflate stream: the final block must end in its
    /// last byte (only zero padding may follow), as libdeflate leaves it. Anything else is
    /// `corrupt`, so a stream the joiner cannot rely on is never patched.
    static func finalBlock(of stream: UnsafeRawBufferPointer) throws(SplatError) -> FinalBlock {
        guard let base = stream.baseAddress, stream.count > 0 else {
            throw SplatError(.corrupt, "empty deflate stream")
        }
        var reader = LSBBitReader(base: base.assumingMemoryBound(to: UInt8.self), count: stream.count)
        var headerBit = 0
        var isFinal = false
        while !isFinal {
            headerBit = reader.bitPosition
            try reader.ensure(3)
            isFinal = reader.take(1) == 1
            switch reader.take(2) {
            case 0: try skipStored(&reader)
            case 1: try skipSymbols(&reader, literals: .fixedLiteralLength, distances: .fixedDistance)
            case 2:
                let (literals, distances) = try readDynamicCodes(&reader)
                try skipSymbols(&reader, literals: literals, distances: distances)
            default: throw SplatError(.corrupt, "deflate block type 3 is reserved")
            }
        }
        let endBit = reader.bitPosition
        guard (endBit + 7) / 8 == stream.count else {
            throw SplatError(.corrupt, "deflate stream ends at bit \(endBit) of \(stream.count) bytes")
        }
        return FinalBlock(headerBit: headerBit, endBit: endBit)
    }

    private static func skipStored(_ reader: inout LSBBitReader) throws(SplatError) {
        reader.alignToByte()
        try reader.ensure(32)
        let length = Int(reader.take(16)), complement = Int(reader.take(16))
        guard length ^ complement == 0xFFFF else { throw SplatError(.corrupt, "stored block length check fails") }
        try reader.skipBytes(length)
    }

    /// Order in which the code-length code's lengths are stored (RFC 1951 section 3.2.7).
    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private static func readDynamicCodes(_ reader: inout LSBBitReader) throws(SplatError) -> (HuffmanDecodeTable, HuffmanDecodeTable) {
        try reader.ensure(14)
        let literalCount = Int(reader.take(5)) + 257, distanceCount = Int(reader.take(5)) + 1
        let codeLengthCount = Int(reader.take(4)) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw SplatError(.corrupt, "too many deflate codes") }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<codeLengthCount {
            try reader.ensure(3)
            codeLengthLengths[codeLengthOrder[i]] = UInt8(reader.take(3))
        }
        let codeLengths = try codeLengthLengths.withUnsafeBufferPointer { (p) throws(SplatError) in try HuffmanDecodeTable(lengths: p) }
        var lengths = [UInt8](repeating: 0, count: literalCount + distanceCount)
        var i = 0
        while i < lengths.count {
            let symbol = try decode(&reader, codeLengths)
            var repeatValue: UInt8 = 0, repeatCount = 0
            switch symbol {
            case 0..<16:
                lengths[i] = UInt8(symbol)
                i += 1
                continue
            case 16:
                guard i > 0 else { throw SplatError(.corrupt, "deflate length repeat with no previous length") }
                try reader.ensure(2)
                repeatValue = lengths[i - 1]
                repeatCount = 3 + Int(reader.take(2))
            case 17:
                try reader.ensure(3)
                repeatCount = 3 + Int(reader.take(3))
            default:
                try reader.ensure(7)
                repeatCount = 11 + Int(reader.take(7))
            }
            guard i + repeatCount <= lengths.count else { throw SplatError(.corrupt, "deflate code lengths overrun") }
            for k in i..<i + repeatCount { lengths[k] = repeatValue }
            i += repeatCount
        }
        guard lengths[256] != 0 else { throw SplatError(.corrupt, "deflate block has no end-of-block code") }
        return try lengths.withUnsafeBufferPointer { (all) throws(SplatError) in
            (try HuffmanDecodeTable(lengths: UnsafeBufferPointer(rebasing: all[0..<literalCount])),
             try HuffmanDecodeTable(lengths: UnsafeBufferPointer(rebasing: all[literalCount...])))
        }
    }

    @inline(__always)
    private static func decode(_ reader: inout LSBBitReader, _ table: HuffmanDecodeTable) throws(SplatError) -> Int {
        try reader.ensure(HuffmanDecodeTable.maxCodeLength)
        let entry = table.fast.withUnsafeBufferPointer { $0[Int(reader.peek(HuffmanDecodeTable.fastBits))] }
        if entry != 0 {
            reader.drop(Int(entry & 15))
            return Int(entry >> 4)
        }
        let (symbol, length) = try table.decodeSlow(reader.peek(HuffmanDecodeTable.maxCodeLength))
        reader.drop(length)
        return symbol
    }

    /// The next symbol of `table` from bits the caller already ensured in the reader's buffer:
    /// the fast entry for the low `fastBits` (`mask`) when there is one, else the slow walk.
    @inline(__always)
    private static func decodeBuffered(_ reader: inout LSBBitReader, _ table: HuffmanDecodeTable,
                                       _ fast: UnsafeBufferPointer<UInt16>, _ mask: UInt64) throws(SplatError) -> Int {
        let entry = fast[Int(reader.buffer & mask)]
        if entry != 0 {
            reader.drop(Int(entry & 15))
            return Int(entry >> 4)
        }
        let (symbol, length) = try table.decodeSlow(reader.buffer)
        reader.drop(length)
        return symbol
    }

    /// Extra bits after length symbols 257 … 285 and distance symbols 0 … 29.
    private static let lengthExtraBits: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceExtraBits: [UInt8] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    /// Skips literal, length and distance codes up to and including the end-of-block code.
    private static func skipSymbols(_ reader: inout LSBBitReader, literals: HuffmanDecodeTable,
                                    distances: HuffmanDecodeTable) throws(SplatError) {
        try literals.fast.withUnsafeBufferPointer { (literalFast) throws(SplatError) in
            try distances.fast.withUnsafeBufferPointer { (distanceFast) throws(SplatError) in
                try lengthExtraBits.withUnsafeBufferPointer { (lengthExtra) throws(SplatError) in
                    try distanceExtraBits.withUnsafeBufferPointer { (distanceExtra) throws(SplatError) in
                        let mask = UInt64(1 << HuffmanDecodeTable.fastBits - 1)
                        while true {
                            // 48 bits cover the longest length/distance pair: 15 + 5 + 15 + 13.
                            try reader.ensure(48)
                            var symbol = try decodeBuffered(&reader, literals, literalFast, mask)
                            if symbol < 256 { continue }
                            if symbol == 256 { return }
                            guard symbol <= 285 else { throw SplatError(.corrupt, "deflate length symbol \(symbol) is reserved") }
                            reader.drop(Int(lengthExtra[symbol - 257]))
                            symbol = try decodeBuffered(&reader, distances, distanceFast, mask)
                            guard symbol < 30 else { throw SplatError(.corrupt, "deflate distance symbol \(symbol) is reserved") }
                            reader.drop(Int(distanceExtra[symbol]))
                        }
                    }
                }
            }
        }
    }
}
