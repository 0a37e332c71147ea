import SplatCore

/// Exact order statistics of millions of Floats without sorting or copying them: a radix
/// selection over their `OrderKey`s in three counting passes of 11, 11 and 10 bits, the
/// fallback of `SampledSelection` when its sample misleads it. Each pass counts, per chunk, the
/// next digit of only those keys whose digits so far match a wanted rank's, so the histograms
/// stay a few KiB per wanted rank, and the counts (integers) add up to the same totals for any
/// thread count.
enum RadixSelection {
    /// Elements per chunk of a counting pass: each chunk has its own histograms (for
    /// `SceneStatistics` up to 24 × 4 copies of 8 KiB), so chunks are long.
    static let chunkSize = 262_144
    /// (shift, bits) of the three digits, most significant first.
    private static let digits: [(shift: UInt32, bits: UInt32)] = [(21, 11), (10, 11), (0, 10)]

    /// Per quantity: how many of the `count` elements take part, and the values at the
    /// ascending ranks `ranks(quantity, valid)` asks for (0-based among those taking part,
    /// each < valid; not called when valid is 0).
    static func select<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?,
                                               ranks: (_ quantity: Int, _ valid: Int) -> [Int]) -> [(valid: Int, values: [Float])] {
        let quantities = source.quantities
        guard count > 0 else { return Array(repeating: (0, []), count: quantities) }
        // Wanted ranks per quantity as (key digits found so far, rank among keys sharing them).
        var prefixes = [[UInt32]](repeating: [0], count: quantities)
        var residuals = [[Int]](repeating: [], count: quantities)
        var valid = [Int](repeating: 0, count: quantities)
        for (pass, digit) in digits.enumerated() {
            let bins = 1 << Int(digit.bits)
            let distinct = prefixes.map { Array(Set($0)).sorted() }
            let histograms = countDigit(source, count: count, threads: threads, digit: digit,
                                        matchShift: pass == 0 ? nil : digit.shift + digit.bits, prefixes: distinct)
            var slot = 0
            for q in 0..<quantities {
                defer { slot += distinct[q].count }
                if pass == 0 {
                    // The last bin holds only `OrderKey.excluded`: no non-NaN Float's key starts with 11 ones.
                    valid[q] = histograms[q * bins ..< (q + 1) * bins].reduce(0, +) - histograms[q * bins + bins - 1]
                    residuals[q] = valid[q] > 0 ? ranks(q, valid[q]) : []
                    prefixes[q] = [UInt32](repeating: 0, count: residuals[q].count)
                }
                for r in residuals[q].indices {
                    let base = (slot + distinct[q].firstIndex(of: prefixes[q][r])!) * bins
                    var below = 0, bin = 0
                    while below + histograms[base + bin] <= residuals[q][r] {
                        below += histograms[base + bin]
                        bin += 1
                    }
                    residuals[q][r] -= below
                    prefixes[q][r] = (prefixes[q][r] << digit.bits) | UInt32(bin)
                }
            }
        }
        return (0..<quantities).map { (valid[$0], prefixes[$0].map(OrderKey.value(ofKey:))) }
    }

    /// Histograms of `digit`, one per (quantity, prefix) in `prefixes` order, over the keys of
    /// that quantity whose bits above `matchShift` equal the prefix (every key when
    /// `matchShift` is nil; `prefixes` then holds one entry per quantity), summed over chunks.
    private static func countDigit<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?,
                                                           digit: (shift: UInt32, bits: UInt32), matchShift: UInt32?,
                                                           prefixes: [[UInt32]]) -> [Int] {
        let quantities = source.quantities
        let bins = 1 << Int(digit.bits)
        let slotBase = prefixes.indices.map { q in prefixes[..<q].reduce(0) { $0 + $1.count } }
        let slots = prefixes.reduce(0) { $0 + $1.count }
        let slotEnd = prefixes.indices.map { slotBase[$0] + prefixes[$0].count }
        // Per chunk, `copies` interleaved histograms (lane l counts into copy l % copies): runs
        // of equal keys, common in quantized data (SPZ opacities take 256 values), would
        // otherwise chain every increment through the same memory word. Each copy ends with a
        // dump bin for the lanes that match no wanted prefix, so the counting has no branches.
        let copies = 4
        let stride = bins * slots + 1
        let perChunk = copies * stride
        let chunks = (count + chunkSize - 1) / chunkSize
        let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: chunks * perChunk)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let mask = SIMD16<UInt32>(repeating: UInt32(bins - 1))
        let dump = SIMD16<UInt32>(repeating: UInt32(bins * slots))
        // Per slot: its prefix as a lane splat and its first bin.
        let wanted = prefixes.flatMap { $0.map { SIMD16<UInt32>(repeating: $0) } }
        let slotBins = (0..<slots).map { SIMD16<UInt32>(repeating: UInt32($0 * bins)) }
        Parallel.forEachChunk(count: count, chunkSize: chunkSize, threads: threads) { c, range in
            let h = counts.baseAddress! + c * perChunk
            withUnsafeTemporaryAllocation(of: SIMD16<UInt32>.self, capacity: quantities + 1) { buffer in
                let k = buffer.baseAddress!
                // Bin indices are read back as scalars from memory: a variable lane index into a
                // vector spills the whole vector every time.
                let index = k + quantities
                let indices = UnsafeRawPointer(index).assumingMemoryBound(to: UInt32.self)
                var i = range.lowerBound
                while i < range.upperBound {
                    source.keys(i, count: count, into: k)
                    for q in 0..<quantities {
                        let digits = (k[q] &>> digit.shift) & mask
                        if let matchShift {
                            let first = slotBase[q], end = slotEnd[q]
                            guard first < end else { continue }
                            let high = k[q] &>> matchShift
                            var bin = dump
                            for s in first..<end { bin.replace(with: slotBins[s] &+ digits, where: high .== wanted[s]) }
                            // After the first pass most vectors match no wanted prefix.
                            guard !all(bin .== dump) else { continue }
                            index.pointee = bin
                        } else {
                            index.pointee = slotBins[slotBase[q]] &+ digits
                        }
                        for l in 0..<16 { h[(l & (copies - 1)) &* stride &+ Int(indices[l])] &+= 1 }
                    }
                    i += 16
                }
            }
        }
        var total = [Int](repeating: 0, count: bins * slots)
        for c in 0..<chunks {
            for copy in 0..<copies {
                let base = c * perChunk + copy * stride
                for b in 0..<(bins * slots) { total[b] += Int(counts[base + b]) }
            }
        }
        return total
    }
}
