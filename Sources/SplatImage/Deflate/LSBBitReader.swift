import SplatCore

/// Reads a byte buffer as a bit stream, least-significant bit of each byte first (deflate's
/// order), through a 64-bit buffer refilled a word at a time. Past the end it supplies zero
/// bits, so look-ahead near the end is safe; `ensure` throws once bits beyond the end are
/// actually consumed.
struct LSBBitReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// The next byte to load into `buffer`.
    private var next = 0
    /// Unconsumed bits, first one lowest. Bits above `available` may hold the next bytes already.
    private(set) var buffer: UInt64 = 0
    private var available = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// Bits consumed so far.
    var bitPosition: Int { next * 8 - available }

    /// Makes at least `bits` (≤ 56) bits available.
    @inline(__always)
    mutating func ensure(_ bits: Int) throws(SplatError) {
        guard available < bits else { return }
        if next + 8 <= count {
            // Loads a whole word and keeps the whole bytes that fit; the rest is loaded again later.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + next).loadUnaligned(as: UInt64.self))
            buffer |= word << UInt64(available)
            next += (63 - available) >> 3
            available |= 56
        } else {
            while available <= 56 {
                let byte = next < count ? base[next] : 0
                buffer |= UInt64(byte) << UInt64(available)
                next += 1
                available += 8
            }
            guard bitPosition <= count * 8 else {
                throw SplatError(.truncated, "deflate stream ends inside a block")
            }
        }
    }

    /// The next `bits` bits without consuming them (after `ensure`).
    @inline(__always)
    func peek(_ bits: Int) -> UInt64 { buffer & (1 << UInt64(bits) &- 1) }

    @inline(__always)
    mutating func drop(_ bits: Int) {
        buffer >>= UInt64(bits)
        available -= bits
    }

    /// Consumes and returns the next `bits` bits (after `ensure`).
    @inline(__always)
    mutating func take(_ bits: Int) -> UInt64 {
        let value = peek(bits)
        drop(bits)
        return value
    }

    /// Drops the bits left in the current byte.
    mutating func alignToByte() { drop(available & 7) }

    /// Skips `n` whole bytes from a byte boundary.
    mutating func skipBytes(_ n: Int) throws(SplatError) {
        let position = bitPosition / 8 + n
        guard position <= count else { throw SplatError(.truncated, "stored deflate block runs past the end") }
        next = position
        buffer = 0
        available = 0
    }
}
