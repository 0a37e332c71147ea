import SplatCore

/// Exact order statistics in one counting pass, guided by a sample (Floyd and Rivest's idea):
/// a fixed-stride sample of the keys brackets each wanted fraction between two of its values
/// lo ≤ hi, wide enough (±4 σ of the sample's rank error) that the true rank almost always
/// falls inside; one SIMD pass then counts the keys below lo, equal to lo and equal to hi, and
/// gathers the few strictly between; the wanted ranks are then found among those few. A rank
/// outside its bracket (a misleading sample) sends its quantity to `RadixSelection`, so the
/// answer is exact either way. Counts are integers and the gathered sets are selected from,
/// not summed, so nothing depends on the thread count.
enum SampledSelection {
    /// Largest sample: the brackets then hold about 3 % (median) and 0.7 % (1st and 99th
    /// percentiles) of the keys, and sorting the sample costs well under a millisecond.
    static let sampleSize = 16_384

    /// The sample for `count` elements: one in 64, between 2,048 and `sampleSize`. A sample
    /// near the scene's own size would cost as much as the counting pass it saves.
    static func sampleSize(count: Int) -> Int { min(sampleSize, max(2048, count / 64)) }
    static let chunkSize = 65_536

    /// One bracket: signed keys (`OrderKey.signed`); `lo` Int32.min means no lower bound and
    /// `hi` Int32.max no upper bound (excluded keys are Int32.max and never fall inside).
    private struct Bracket {
        var quantity: Int
        var lo: Int32
        var hi: Int32
        /// `hi` for the equality count: Int32.min (no key) when hi is unbounded or equals lo.
        var hiEqual: Int32
    }

    /// Per quantity: how many of the `count` elements take part, and the value at each rank the
    /// type-7 percentiles at `fractions[q]` need (`Percentiles.ranks`).
    static func select<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?, fractions: [[Double]],
                                               sampleSize: Int? = nil) -> [(valid: Int, values: [Int: Float])] {
        let quantities = source.quantities
        func wantedRanks(_ q: Int, _ valid: Int) -> [Int] {
            Array(Set(fractions[q].flatMap { Percentiles.ranks(fraction: $0, count: valid) })).sorted()
        }
        guard count > 0 else { return Array(repeating: (0, [:]), count: quantities) }
        let sampleSize = sampleSize ?? Self.sampleSize(count: count)
        let samples = sample(source, count: count, size: sampleSize)
        if count <= sampleSize {
            // The sample is every element: nothing left to count.
            return samples.indices.map { q in
                let s = samples[q]
                guard !s.isEmpty else { return (0, [:]) }
                return (s.count, Dictionary(uniqueKeysWithValues: wantedRanks(q, s.count).map { ($0, OrderKey.value(ofSignedKey: s[$0])) }))
            }
        }
        var brackets: [Bracket] = []
        for q in 0..<quantities {
            for p in Set(fractions[q]).sorted() { brackets.append(bracket(q, fraction: p, sample: samples[q])) }
        }
        var tally = tallyPass(source, count: count, threads: threads, brackets: brackets)

        var result = [(valid: Int, values: [Int: Float])](repeating: (0, [:]), count: quantities)
        var unresolved: [Int] = []
        for q in 0..<quantities {
            let valid = tally.included[q]
            result[q].valid = valid
            guard valid > 0 else { continue }
            for r in wantedRanks(q, valid) {
                guard let value = resolve(rank: r, quantity: q, brackets: brackets, tally: &tally) else {
                    unresolved.append(q)
                    break
                }
                result[q].values[r] = value
            }
        }
        if !unresolved.isEmpty {
            let exact = RadixSelection.select(source, count: count, threads: threads) { q, valid in
                unresolved.contains(q) ? wantedRanks(q, valid) : []
            }
            for q in unresolved {
                result[q].values = Dictionary(uniqueKeysWithValues: zip(wantedRanks(q, exact[q].valid), exact[q].values))
            }
        }
        return result
    }

    /// Sorted signed keys of `size` elements at a fixed stride (all of them when count ≤ size),
    /// excluded ones left out, per quantity.
    private static func sample<Source: OrderKeySource>(_ source: Source, count: Int, size: Int) -> [[Int32]] {
        let quantities = source.quantities
        let m = min(count, size)
        var samples = [[Int32]](repeating: [], count: quantities)
        for q in 0..<quantities { samples[q].reserveCapacity(m) }
        withUnsafeTemporaryAllocation(of: SIMD16<UInt32>.self, capacity: quantities) { buffer in
            let k = buffer.baseAddress!
            var block = -1
            for j in 0..<m {
                let e = j * count / m
                if e & ~15 != block {
                    block = e & ~15
                    source.keys(block, into: k)
                }
                for q in 0..<quantities {
                    let key = k[q][e & 15]
                    if key != OrderKey.excluded { samples[q].append(Int32(bitPattern: key ^ 0x8000_0000)) }
                }
            }
        }
        return samples.map { $0.sorted() }
    }

    /// The bracket of `fraction` from a sorted sample: its sample rank ± (4 σ + 4), σ the
    /// binomial standard deviation of a sample rank.
    private static func bracket(_ q: Int, fraction p: Double, sample s: [Int32]) -> Bracket {
        let m = s.count
        guard m > 0 else { return Bracket(quantity: q, lo: .min, hi: .max, hiEqual: .min) }
        let t = p * Double(m - 1)
        let d = 4 * (p * (1 - p) * Double(m)).squareRoot() + 4
        let loIndex = Int((t - d).rounded(.down)), hiIndex = Int((t + d).rounded(.up)) + 1
        let lo = loIndex < 0 ? Int32.min : s[loIndex]
        let hi = hiIndex >= m ? Int32.max : s[hiIndex]
        return Bracket(quantity: q, lo: lo, hi: hi, hiEqual: hi == .max || hi == lo ? .min : hi)
    }

    /// What the counting pass found: per quantity the keys taking part, per bracket the keys
    /// below lo, equal to lo, equal to hi, and those strictly between (nil when too many to
    /// gather, which makes the bracket unusable).
    private struct Tally {
        var included: [Int]
        var below: [Int], atLo: [Int], atHi: [Int]
        var inside: [[Int32]?]
    }

    private static func tallyPass<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?, brackets: [Bracket]) -> Tally {
        let quantities = source.quantities, b = brackets.count
        let chunks = (count + chunkSize - 1) / chunkSize
        // Gathering more than a quarter of a chunk for one bracket means the sample was useless
        // there; the bracket is abandoned rather than holding a copy of the column.
        let cap = chunkSize / 4
        var included = [[Int]](repeating: [], count: chunks)
        var counts = [[Int]](repeating: [], count: chunks)
        var gathered = [[[Int32]?]](repeating: [], count: chunks)
        let lo = brackets.map { SIMD16<Int32>(repeating: $0.lo) }, hi = brackets.map { SIMD16<Int32>(repeating: $0.hi) }
        let hiEqual = brackets.map { SIMD16<Int32>(repeating: $0.hiEqual) }
        let laneBits = SIMD16<Int32>(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)
        let quantityOf = brackets.map(\.quantity)
        let excludedSigned = SIMD16<Int32>(repeating: .max)
        Parallel.forEachChunk(count: count, chunkSize: chunkSize, threads: threads) { c, range in
            var inside = [[Int32]?](repeating: [], count: b)
            // Counters live in one raw buffer, not Swift arrays: an array element updated in the
            // hot loop pays a bounds and uniqueness check every time.
            let slots = quantities + 3 * b + quantities + 1
            withUnsafeTemporaryAllocation(of: SIMD16<Int32>.self, capacity: slots) { buffer in
                let counters = buffer.baseAddress!
                counters.initialize(repeating: .zero, count: quantities + 3 * b)
                let inChunk = counters, below = counters + quantities, atLo = below + b, atHi = atLo + b
                let k = UnsafeMutableRawPointer(atHi + b).assumingMemoryBound(to: SIMD16<UInt32>.self)
                let signedKeys = UnsafeMutableRawPointer(k + quantities).assumingMemoryBound(to: SIMD16<Int32>.self)
                let lanes = UnsafeRawPointer(signedKeys).assumingMemoryBound(to: Int32.self)
                lo.withUnsafeBufferPointer { lo in
                hi.withUnsafeBufferPointer { hi in
                hiEqual.withUnsafeBufferPointer { hiEqual in
                quantityOf.withUnsafeBufferPointer { quantityOf in
                    var i = range.lowerBound
                    while i < range.upperBound {
                        source.keys(i, count: count, into: k)
                        for q in 0..<quantities {
                            // A true lane of a mask is −1: subtracting counts it. Excluded keys
                            // are counted (`.!=` goes lane by lane) and taken from the total.
                            inChunk[q] &-= unsafeBitCast(OrderKey.signed(k[q]) .== excludedSigned, to: SIMD16<Int32>.self)
                        }
                        for j in 0..<b {
                            let key = OrderKey.signed(k[quantityOf[j]])
                            below[j] &-= unsafeBitCast(key .< lo[j], to: SIMD16<Int32>.self)
                            atLo[j] &-= unsafeBitCast(key .== lo[j], to: SIMD16<Int32>.self)
                            atHi[j] &-= unsafeBitCast(key .== hiEqual[j], to: SIMD16<Int32>.self)
                            let between = (key .> lo[j]) .& (key .< hi[j])
                            guard any(between), inside[j] != nil else { continue }
                            // Lanes are read back from memory: a variable lane index into a
                            // vector spills it every time.
                            signedKeys.pointee = key
                            var bits = (unsafeBitCast(between, to: SIMD16<Int32>.self) & laneBits).wrappedSum()
                            while bits != 0 {
                                inside[j]!.append(lanes[Int(bits.trailingZeroBitCount)])
                                bits &= bits &- 1
                            }
                            if inside[j]!.count > cap { inside[j] = nil }
                        }
                        i += 16
                    }
                }
                }
                }
                }
                // Lanes past `count` in the last vector were counted as excluded too.
                let lanesSeen = (range.count + 15) & ~15
                included[c] = (0..<quantities).map { lanesSeen - Int(inChunk[$0].wrappedSum()) }
                counts[c] = (0..<(3 * b)).map { Int(below[$0].wrappedSum()) }
            }
            gathered[c] = inside
        }
        var tally = Tally(included: Array(repeating: 0, count: quantities), below: Array(repeating: 0, count: b),
                          atLo: Array(repeating: 0, count: b), atHi: Array(repeating: 0, count: b),
                          inside: Array(repeating: [], count: b))
        for c in 0..<chunks {
            for q in 0..<quantities { tally.included[q] += included[c][q] }
            for j in 0..<b {
                tally.below[j] += counts[c][j]
                tally.atLo[j] += counts[c][b + j]
                tally.atHi[j] += counts[c][2 * b + j]
                if let more = gathered[c][j], tally.inside[j] != nil { tally.inside[j]!.append(contentsOf: more) } else { tally.inside[j] = nil }
            }
        }
        return tally
    }

    /// The value at `rank` from the first usable bracket of `quantity` that holds it.
    private static func resolve(rank r: Int, quantity q: Int, brackets: [Bracket], tally: inout Tally) -> Float? {
        for j in brackets.indices where brackets[j].quantity == q && tally.inside[j] != nil {
            let start = tally.below[j], afterLo = start + tally.atLo[j]
            let afterInside = afterLo + tally.inside[j]!.count, end = afterInside + tally.atHi[j]
            guard r >= start, r < end else { continue }
            if r < afterLo { return OrderKey.value(ofSignedKey: brackets[j].lo) }
            if r >= afterInside { return OrderKey.value(ofSignedKey: brackets[j].hi) }
            return OrderKey.value(ofSignedKey: nthElement(&tally.inside[j]!, r - afterLo))
        }
        return nil
    }

    /// The k-th smallest (0-based) of `a`, which is reordered (quickselect, median of three).
    static func nthElement(_ array: inout [Int32], _ k: Int) -> Int32 {
        precondition(k >= 0 && k < array.count)
        // Through a buffer pointer: array subscripts here paid a uniqueness check per swap.
        return array.withUnsafeMutableBufferPointer { a in
            var lo = 0, hi = a.count - 1
            while lo < hi {
                let mid = lo + (hi - lo) / 2
                let pivot = max(min(a[lo], a[mid]), min(max(a[lo], a[mid]), a[hi]))
                var i = lo, j = hi
                while i <= j {
                    while a[i] < pivot { i += 1 }
                    while a[j] > pivot { j -= 1 }
                    if i <= j {
                        a.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if k <= j { hi = j } else if k >= i { lo = i } else { return a[k] }
            }
            return a[k]
        }
    }
}
