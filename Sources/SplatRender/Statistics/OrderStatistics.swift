import SplatCore

/// Values to rank, 16 at a time, as order-preserving keys (`OrderStatistics.keys`): `keys(i)`
/// covers elements i ..< i + 16 for i a multiple of 16, may read the columns' zeroed padding,
/// and gives `OrderStatistics.excluded` for an element that does not take part.
protocol OrderKeySource {
    func keys(_ i: Int) -> SIMD16<UInt32>
}

/// Exact order statistics of millions of Floats without sorting or copying them: a radix
/// selection over 32-bit keys that sort like the Floats, in three counting passes of 11, 11 and
/// 10 bits. Each pass counts, per chunk, the next digit of only those keys whose digits so far
/// match a wanted rank's, so the histograms stay a few KiB and the counts (integers) add up to
/// the same totals for any thread count.
enum OrderStatistics {
    /// The key of an element left out: above every non-NaN Float's key, and NaNs are never keys.
    static let excluded: UInt32 = .max
    /// Elements per chunk of a counting pass.
    static let chunkSize = 65_536
    /// (shift, bits) of the three digits, most significant first.
    private static let digits: [(shift: UInt32, bits: UInt32)] = [(21, 11), (10, 11), (0, 10)]

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

    /// How many of the `count` elements take part, and the values at the ascending ranks
    /// `ranks(valid)` asks for (0-based among the elements taking part; each < valid).
    static func select<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?,
                                               ranks: (_ valid: Int) -> [Int]) -> (valid: Int, values: [Float]) {
        guard count > 0 else { return (0, []) }
        // Wanted ranks as (key digits found so far, rank among the keys sharing them).
        var prefixes: [UInt32] = []
        var residuals: [Int] = []
        var valid = 0
        for (pass, digit) in digits.enumerated() {
            let matchShift = digit.shift + digit.bits
            let distinct = pass == 0 ? [0] : Array(Set(prefixes)).sorted()
            let histograms = countDigit(source, count: count, threads: threads, digit: digit,
                                        matchShift: pass == 0 ? nil : matchShift, prefixes: distinct)
            let bins = 1 << Int(digit.bits)
            if pass == 0 {
                valid = histograms.reduce(0, +) - histograms[bins - 1]
                guard valid > 0 else { return (0, []) }
                residuals = ranks(valid)
                prefixes = [UInt32](repeating: 0, count: residuals.count)
            }
            for r in residuals.indices {
                let slot = distinct.firstIndex(of: prefixes[r])!
                var below = 0
                var bin = 0
                while below + histograms[slot * bins + bin] <= residuals[r] {
                    below += histograms[slot * bins + bin]
                    bin += 1
                }
                residuals[r] -= below
                prefixes[r] = (prefixes[r] << digit.bits) | UInt32(bin)
            }
        }
        return (valid, prefixes.map(value(ofKey:)))
    }

    /// Counts of `digit` over the keys whose bits above `matchShift` equal one of `prefixes`
    /// (every key when `matchShift` is nil), one histogram per prefix, summed over chunks.
    private static func countDigit<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?,
                                                           digit: (shift: UInt32, bits: UInt32), matchShift: UInt32?,
                                                           prefixes: [UInt32]) -> [Int] {
        let bins = 1 << Int(digit.bits)
        let perChunk = bins * prefixes.count
        let chunks = (count + chunkSize - 1) / chunkSize
        let counts = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: chunks * perChunk)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let mask = UInt32(bins - 1)
        let wanted = prefixes.map { SIMD16<UInt32>(repeating: $0) }
        Parallel.forEachChunk(count: count, chunkSize: chunkSize, threads: threads) { c, range in
            let h = counts.baseAddress! + c * perChunk
            var i = range.lowerBound
            while i < range.upperBound {
                var k = source.keys(i)
                if i + 16 > count {
                    let lane = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
                    k.replace(with: excluded, where: lane .>= Int32(count - i))
                }
                if let matchShift {
                    let high = k &>> matchShift
                    var hit = high .== wanted[0]
                    for w in wanted.dropFirst() { hit = hit .| (high .== w) }
                    // Few keys match a wanted prefix after the first pass: visit lanes only then.
                    if _fastPath(!any(hit)) {
                        i += 16
                        continue
                    }
                    for l in 0..<16 where hit[l] {
                        let slot = prefixes.firstIndex(of: high[l])!
                        h[slot * bins + Int((k[l] &>> digit.shift) & mask)] += 1
                    }
                } else {
                    for l in 0..<16 { h[Int((k[l] &>> digit.shift) & mask)] += 1 }
                }
                i += 16
            }
        }
        var total = [Int](repeating: 0, count: perChunk)
        for c in 0..<chunks {
            for b in 0..<perChunk { total[b] += Int(counts[c * perChunk + b]) }
        }
        return total
    }
}
