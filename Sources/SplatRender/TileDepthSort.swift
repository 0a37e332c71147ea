/// Sorts one tile's pair list front to back: slots in increasing order become slots ordered by
/// (depth, slot) — the order INRIA's (tile, depth) key sort produces, with ties in splat order.
///
/// Each pair is packed as (depth bits − the tile's smallest) << 32 | slot: depths are > 0, so
/// their IEEE bits order like the floats, and since the slots arrive ascending, a stable LSD
/// radix sort over the key bits alone leaves ties in slot order. Only the bits that differ inside
/// the tile are sorted (the span of its keys), in passes of equal digits of at most 11 bits — a tile's
/// depths span far fewer bits than the whole frame's, and its list stays in L1/L2 while it is
/// sorted, where the frame-wide sort this replaced streamed every visible splat through memory
/// ⌈bits/11⌉ times and then copied every record into depth order. Short lists take an insertion
/// sort on the packed values.
enum TileDepthSort {
    static let maxDigitBits = 11
    /// Lists up to this length are insertion-sorted.
    static let insertionLimit = 48

    /// Sorts `entries[0..<count]` (slots, ascending on entry) by `depth[slot]`. `scratch` holds
    /// at least 2·`count` values.
    static func sort(_ entries: UnsafeMutablePointer<UInt32>, count: Int, depth: UnsafePointer<Float>,
                     scratch: UnsafeMutablePointer<UInt64>) {
        guard count > 1 else { return }
        var lo = UInt32.max, hi = UInt32.min
        for i in 0..<count {
            let key = depth[Int(entries[i])].bitPattern
            lo = min(lo, key)
            hi = max(hi, key)
        }
        let span = hi &- lo
        guard span > 0 else { return }
        let packed = scratch, other = scratch + count
        for i in 0..<count {
            let slot = entries[i]
            packed[i] = UInt64(depth[Int(slot)].bitPattern &- lo) << 32 | UInt64(slot)
        }
        var result = UnsafePointer(packed)
        if count <= insertionLimit {
            for i in 1..<count {
                let value = packed[i]
                var j = i
                while j > 0 && packed[j - 1] > value {
                    packed[j] = packed[j - 1]
                    j -= 1
                }
                packed[j] = value
            }
        } else {
            result = radix(packed, other, count: count, bits: UInt32.bitWidth - span.leadingZeroBitCount)
        }
        for i in 0..<count { entries[i] = UInt32(truncatingIfNeeded: result[i]) }
    }

    /// Stable LSD radix sort of `count` packed values by their key bits 32..<32 + bits, between
    /// `a` and `b`; returns the buffer holding the result.
    private static func radix(_ a: UnsafeMutablePointer<UInt64>, _ b: UnsafeMutablePointer<UInt64>, count: Int,
                              bits: Int) -> UnsafePointer<UInt64> {
        // A pass costs about 2·count + 2·buckets: digits no wider than the list is long, so short
        // lists do not spend their time clearing and scanning empty buckets.
        let widest = max(4, min(maxDigitBits, Int.bitWidth - count.leadingZeroBitCount - 1))
        let passes = (bits + widest - 1) / widest
        let digitBits = (bits + passes - 1) / passes
        let buckets = 1 << digitBits
        let mask = UInt64(buckets - 1)
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 1 << maxDigitBits) { histogram in
            let h = histogram.baseAddress!
            var source = a, target = b
            for pass in 0..<passes {
                let shift = UInt64(32 + pass * digitBits)
                h.initialize(repeating: 0, count: buckets)
                for i in 0..<count { h[Int((source[i] >> shift) & mask)] &+= 1 }
                var running: UInt32 = 0
                for d in 0..<buckets {
                    let c = h[d]
                    h[d] = running
                    running += c
                }
                for i in 0..<count {
                    let value = source[i]
                    let d = Int((value >> shift) & mask)
                    target[Int(h[d])] = value
                    h[d] &+= 1
                }
                swap(&source, &target)
            }
            return UnsafePointer(source)
        }
    }
}
