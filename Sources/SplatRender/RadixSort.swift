import SplatCore

/// Stable LSD radix sort of (UInt32 key, UInt32 value) pairs over only the significant bits of
/// the keys: keys are rebased on their minimum, and ⌈bits/11⌉ passes of equal-width digits
/// (≤ 11 bits, a 2048-entry histogram that stays in L1) cover the rest.
///
/// Parallel per pass: fixed blocks (their size depends only on the element count) histogram
/// their digits, one exclusive scan orders (digit, block), and each block scatters its elements
/// in order — so the result is the same stable order for any thread count.
enum RadixSort {
    static let maxDigitBits = 11

    /// Sorts `count` pairs held in `keys`/`values`, using `scratchKeys`/`scratchValues` (same
    /// size) as the second buffer. Returns which buffer pair holds the result.
    static func sort(keys: UnsafeMutablePointer<UInt32>, values: UnsafeMutablePointer<UInt32>,
                     scratchKeys: UnsafeMutablePointer<UInt32>, scratchValues: UnsafeMutablePointer<UInt32>,
                     count: Int, threads: Int?) -> (keys: UnsafeMutablePointer<UInt32>, values: UnsafeMutablePointer<UInt32>) {
        guard count > 1 else { return (keys, values) }
        let blockSize = max(1 << 15, (count + 63) / 64)
        let blocks = (count + blockSize - 1) / blockSize

        // Key range, so only bits that differ are sorted.
        let minima = AlignedBuffer<UInt32>(count: blocks), maxima = AlignedBuffer<UInt32>(count: blocks)
        Parallel.forEachChunk(count: count, chunkSize: blockSize, threads: threads) { b, range in
            var lo = UInt32.max, hi = UInt32.min
            for i in range {
                lo = min(lo, keys[i])
                hi = max(hi, keys[i])
            }
            minima[b] = lo
            maxima[b] = hi
        }
        var lo = UInt32.max, hi = UInt32.min
        for b in 0..<blocks {
            lo = min(lo, minima[b])
            hi = max(hi, maxima[b])
        }
        let span = hi - lo
        guard span > 0 else { return (keys, values) }
        let bits = UInt32.bitWidth - span.leadingZeroBitCount
        let passes = (bits + maxDigitBits - 1) / maxDigitBits
        let digitBits = (bits + passes - 1) / passes
        let buckets = 1 << digitBits
        let digitMask = UInt32(buckets - 1)

        let histogram = AlignedBuffer<Int>(count: blocks * buckets)
        var source = (keys, values), target = (scratchKeys, scratchValues)
        for pass in 0..<passes {
            let shift = UInt32(pass * digitBits)
            let (srcKeys, srcValues) = source
            let (dstKeys, dstValues) = target
            Parallel.forEachChunk(count: count, chunkSize: blockSize, threads: threads) { b, range in
                let h = histogram.base + b * buckets
                h.initialize(repeating: 0, count: buckets)
                for i in range { h[Int(((srcKeys[i] &- lo) >> shift) & digitMask)] += 1 }
            }
            // Exclusive scan in (digit, block) order: block b's elements of digit d follow those
            // of blocks < b, which keeps the sort stable.
            var running = 0
            for d in 0..<buckets {
                for b in 0..<blocks {
                    let c = histogram[b * buckets + d]
                    histogram[b * buckets + d] = running
                    running += c
                }
            }
            Parallel.forEachChunk(count: count, chunkSize: blockSize, threads: threads) { b, range in
                let offsets = histogram.base + b * buckets
                for i in range {
                    let key = srcKeys[i]
                    let d = Int(((key &- lo) >> shift) & digitMask)
                    let slot = offsets[d]
                    offsets[d] = slot + 1
                    dstKeys[slot] = key
                    dstValues[slot] = srcValues[i]
                }
            }
            swap(&source, &target)
        }
        return source
    }
}
