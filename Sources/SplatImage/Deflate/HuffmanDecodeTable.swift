import SplatCore

/// A canonical Huffman code (RFC 1951 section 3.2.2) set up for decoding a bit stream that is
/// read least-significant bit first. Codes up to `fastBits` long resolve with one table look-up
/// on the next `fastBits` input bits; longer codes, which are rare by construction, are decoded
/// one bit at a time from the per-length counts, as zlib's `puff.c` does.
struct HuffmanDecodeTable: Sendable {
    static let fastBits = 10
    static let maxCodeLength = 15

    /// Indexed by the next `fastBits` input bits: `symbol << 4 | length`, or 0 when the code is
    /// longer than `fastBits` (no symbol has length 0, so 0 is free as the marker).
    private(set) var fast: [UInt16]
    /// How many codes have each length, 0 … 15.
    private(set) var counts: [UInt16]
    /// Symbols in canonical order: by code length, then by symbol value.
    private(set) var sorted: [UInt16]

    /// Builds the table from one code length per symbol (0 = symbol unused). An over-subscribed
    /// set of lengths is refused; an incomplete one is allowed (RFC 1951 permits it for the
    /// distance code), and bits that match no code then fail in `decodeSlow`.
    init(lengths: UnsafeBufferPointer<UInt8>) throws(SplatError) {
        guard lengths.allSatisfy({ Int($0) <= Self.maxCodeLength }) else {
            throw SplatError(.corrupt, "deflate code length exceeds 15")
        }
        let counts = Self.tally(lengths)
        var left = 1
        for length in 1...Self.maxCodeLength {
            left = left << 1 - Int(counts[length])
            guard left >= 0 else { throw SplatError(.corrupt, "over-subscribed deflate Huffman code") }
        }
        self.init(lengths: lengths, counts: counts)
    }

    /// How many symbols have each length 1 … 15 (index 0 is left at zero).
    private static func tally(_ lengths: UnsafeBufferPointer<UInt8>) -> [UInt16] {
        var counts = [UInt16](repeating: 0, count: maxCodeLength + 1)
        for length in lengths where length != 0 { counts[Int(length)] += 1 }
        return counts
    }

    /// Builds the table from lengths already checked (or constant, for the fixed codes).
    private init(lengths: UnsafeBufferPointer<UInt8>, counts: [UInt16]) {
        var offsets = [Int](repeating: 0, count: Self.maxCodeLength + 2)
        for length in 1...Self.maxCodeLength { offsets[length + 1] = offsets[length] + Int(counts[length]) }
        var sorted = [UInt16](repeating: 0, count: offsets[Self.maxCodeLength + 1])
        var fast = [UInt16](repeating: 0, count: 1 << Self.fastBits)
        var next = offsets
        for (symbol, length) in lengths.enumerated() where length != 0 {
            sorted[next[Int(length)]] = UInt16(symbol)
            next[Int(length)] += 1
        }
        // Canonical codes in order: the first code of each length follows the last of the one before.
        var code = 0
        var index = 0
        for length in 1...Self.maxCodeLength {
            for _ in 0..<Int(counts[length]) {
                if length <= Self.fastBits {
                    let reversed = Self.reverse(code, bits: length)
                    let entry = sorted[index] << 4 | UInt16(length)
                    for slot in stride(from: reversed, to: 1 << Self.fastBits, by: 1 << length) { fast[slot] = entry }
                }
                code += 1
                index += 1
            }
            code <<= 1
        }
        self.fast = fast
        self.counts = counts
        self.sorted = sorted
    }

    /// Decodes a code longer than `fastBits` from `bits` (the next input bits, first bit lowest);
    /// returns the symbol and the code length.
    func decodeSlow(_ bits: UInt64) throws(SplatError) -> (symbol: Int, length: Int) {
        var code = 0, first = 0, index = 0
        for length in 1...Self.maxCodeLength {
            code |= Int((bits >> UInt64(length - 1)) & 1)
            let count = Int(counts[length])
            if code - first < count { return (Int(sorted[index + code - first]), length) }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw SplatError(.corrupt, "deflate bits match no Huffman code")
    }

    static func reverse(_ code: Int, bits: Int) -> Int {
        var value = code, out = 0
        for _ in 0..<bits {
            out = out << 1 | value & 1
            value >>= 1
        }
        return out
    }

    /// A code from constant lengths that form a complete code.
    private init(constant lengths: [UInt8]) {
        self = lengths.withUnsafeBufferPointer { HuffmanDecodeTable(lengths: $0, counts: Self.tally($0)) }
    }

    /// The fixed literal/length code of RFC 1951 section 3.2.6.
    static let fixedLiteralLength = HuffmanDecodeTable(constant: (0..<288).map { UInt8($0 < 144 ? 8 : $0 < 256 ? 9 : $0 < 280 ? 7 : 8) })

    /// The fixed distance code: 30 used symbols (and two reserved) of 5 bits.
    static let fixedDistance = HuffmanDecodeTable(constant: [UInt8](repeating: 5, count: 32))
}
