/// Per-element quantities to rank, 16 elements at a time, as order-preserving keys
/// (`OrderKey.keys`). Several quantities share one source so that one pass over the columns
/// serves them all.
protocol OrderKeySource {
    /// Quantities ranked, each with its own ranks.
    var quantities: Int { get }
    /// Writes `keys[q]` for q < `quantities`: the keys of elements i ..< i + 16 (i a multiple of
    /// 16), `OrderKey.excluded` for an element not taking part. May read the columns' zeroed
    /// padding.
    func keys(_ i: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>)
}

extension OrderKeySource {
    /// `keys(i, into:)` for a source of `count` elements: lanes at or past `count` (the padding
    /// of the last vector) are `OrderKey.excluded` too.
    @inline(__always)
    func keys(_ i: Int, count: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>) {
        self.keys(i, into: keys)
        if i + 16 > count {
            let lane = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
            for q in 0..<quantities { keys[q].replace(with: OrderKey.excluded, where: lane .>= Int32(count - i)) }
        }
    }
}

/// 32-bit keys that sort (as unsigned integers) like the Floats they come from, so order
/// statistics of Floats can be found by counting bits.
enum OrderKey {
    /// The key of an element left out: above every non-NaN Float's key, and NaNs are never keys.
    static let excluded: UInt32 = .max
    /// Keys ordered like the Floats (−0 just below +0), `excluded` where `included` is false.
    /// Flips all bits of a negative Float and only the sign bit of a positive one.
    @inline(__always)
    static func keys(_ v: SIMD16<Float>, included: SIMDMask<SIMD16<Int32>>) -> SIMD16<UInt32> {
        let bits = unsafeBitCast(v, to: SIMD16<UInt32>.self)
        let flip = unsafeBitCast(unsafeBitCast(bits, to: SIMD16<Int32>.self) &>> 31, to: SIMD16<UInt32>.self) | 0x8000_0000
        return (bits ^ flip).replacing(with: excluded, where: .!included)
    }

    /// The Float a key came from.
    @inline(__always)
    static func value(ofKey k: UInt32) -> Float {
        Float(bitPattern: k & 0x8000_0000 != 0 ? k ^ 0x8000_0000 : ~k)
    }

    /// The same order as signed integers (for AVX2, which compares only signed lanes):
    /// `excluded` becomes `Int32.max`, and `Int32.min` is the key of no non-NaN Float.
    @inline(__always)
    static func signed(_ k: SIMD16<UInt32>) -> SIMD16<Int32> { unsafeBitCast(k ^ 0x8000_0000, to: SIMD16<Int32>.self) }

    /// The Float a signed key came from.
    @inline(__always)
    static func value(ofSignedKey k: Int32) -> Float { value(ofKey: UInt32(bitPattern: k) ^ 0x8000_0000) }
}
