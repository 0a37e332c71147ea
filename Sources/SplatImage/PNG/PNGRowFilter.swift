/// PNG row filtering (PNG specification section 9): each row is stored as its filter type byte
/// followed by the row's bytes minus a prediction from the pixel to the left (a), the one above
/// (b) and the one above-left (c), which makes smooth images far more compressible.
///
/// The filter of each row is libpng's default choice: the one whose output bytes, read as signed,
/// have the smallest sum of magnitudes. On encoding every prediction reads original pixels only,
/// so all five filters vectorise; they are computed in one pass over the row.
enum PNGRowFilter {
    /// PNG's filter types, in the order of their type byte.
    static let typeCount = 5

    /// Bytes of scratch `filter(row:…)` needs for rows of `rowBytes` bytes.
    static func scratchBytes(rowBytes: Int) -> Int { typeCount * rowBytes }

    /// Writes the filtered row — type byte, then `rowBytes` bytes — to `out`.
    ///
    /// - Parameters:
    ///   - row: the row's pixels; `above`: the previous row's, or zeros for the first row.
    ///   - bytesPerPixel: 3 or 4 (the distance to the left neighbour).
    ///   - scratch: `scratchBytes(rowBytes:)` bytes, reused between calls.
    static func filter(row: UnsafePointer<UInt8>, above: UnsafePointer<UInt8>, rowBytes: Int, bytesPerPixel bpp: Int,
                       scratch: UnsafeMutablePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        var sums = SIMD8<UInt32>()
        var i = 0
        // The first pixel has no left neighbour: a = c = 0.
        while i < min(bpp, rowBytes) {
            sums &+= scalarStep(row, above, scratch, rowBytes, i, a: 0, c: 0)
            i += 1
        }
        var totals = MagnitudeSums()
        while i + Bytes.scalarCount <= rowBytes {
            let x = load(row + i), a = load(row + i - bpp), b = load(above + i), c = load(above + i - bpp)
            let sub = x &- a, up = x &- b
            // floor((a + b) / 2) without leaving 8 bits.
            let average = x &- ((a & b) &+ ((a ^ b) &>> 1))
            let paeth = x &- paethPredictor(a: a, b: b, c: c)
            store(x, scratch + i)
            store(sub, scratch + rowBytes + i)
            store(up, scratch + 2 * rowBytes + i)
            store(average, scratch + 3 * rowBytes + i)
            store(paeth, scratch + 4 * rowBytes + i)
            totals.add(x, sub, up, average, paeth)
            i += Bytes.scalarCount
        }
        sums &+= totals.flushed()
        while i < rowBytes {
            sums &+= scalarStep(row, above, scratch, rowBytes, i, a: row[i - bpp], c: above[i - bpp])
            i += 1
        }
        var best = 0
        for type in 1..<typeCount where sums[type] < sums[best] { best = type }
        out[0] = UInt8(best)
        (out + 1).update(from: scratch + best * rowBytes, count: rowBytes)
    }

    /// Sixteen bytes. Measured with Swift 6.3 at -O: on `SIMD32<UInt8>` the bitwise operators
    /// stay lane-by-lane loops (200× slower), on `SIMD16<UInt8>` they are single instructions;
    /// comparisons with a scalar operand are slow on both, widening conversions and
    /// `pointwiseMin` cost several times a blend. So: 16 lanes, 8-bit arithmetic, bitwise blends.
    typealias Bytes = SIMD16<UInt8>
    typealias Mask = SIMDMask<SIMD16<Int8>>

    /// `ifTrue` where `mask` holds, else `ifFalse`. A mask is stored as lanes of all ones or zeros
    /// (`SIMDMask` wraps its storage vector), so it blends as a byte vector.
    @inline(__always)
    private static func select(_ mask: Mask, _ ifTrue: Bytes, _ ifFalse: Bytes) -> Bytes {
        select(bits(mask), ifTrue, ifFalse)
    }

    @inline(__always)
    private static func select(_ mask: Bytes, _ ifTrue: Bytes, _ ifFalse: Bytes) -> Bytes {
        ifFalse ^ ((ifTrue ^ ifFalse) & mask)
    }

    /// A mask as bytes of all ones or zeros, to blend and combine as bytes.
    @inline(__always)
    private static func bits(_ mask: Mask) -> Bytes { unsafeBitCast(mask, to: Bytes.self) }

    private static let signBoundary = Bytes(repeating: 127)

    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt8>) -> Bytes {
        UnsafeRawPointer(p).loadUnaligned(as: Bytes.self)
    }

    @inline(__always)
    private static func store(_ v: Bytes, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: Bytes.self)
    }

    /// |x − y| of unsigned bytes.
    @inline(__always)
    private static func distance(_ x: Bytes, _ y: Bytes) -> Bytes {
        select(y .> x, y &- x, x &- y)
    }

    /// Per-filter sums of |byte read as signed| kept in 8-bit lanes — a low byte and a count of
    /// its carries per lane — and flushed to 32 bits before a count can wrap.
    private struct MagnitudeSums {
        var low0 = Bytes(), low1 = Bytes(), low2 = Bytes(), low3 = Bytes(), low4 = Bytes()
        var carry0 = Bytes(), carry1 = Bytes(), carry2 = Bytes(), carry3 = Bytes(), carry4 = Bytes()
        var steps = 0
        var flushedSums = SIMD8<UInt32>()

        @inline(__always)
        mutating func add(_ f0: Bytes, _ f1: Bytes, _ f2: Bytes, _ f3: Bytes, _ f4: Bytes) {
            Self.accumulate(f0, &low0, &carry0)
            Self.accumulate(f1, &low1, &carry1)
            Self.accumulate(f2, &low2, &carry2)
            Self.accumulate(f3, &low3, &carry3)
            Self.accumulate(f4, &low4, &carry4)
            steps += 1
            if steps == 255 { flush() }
        }

        @inline(__always)
        private static func accumulate(_ v: Bytes, _ low: inout Bytes, _ carries: inout Bytes) {
            // 0x80 … 0xFF are negative: |v| = 256 − v.
            let magnitude = select(v .> signBoundary, Bytes() &- v, v)
            let sum = low &+ magnitude
            // A carry lane is all ones: subtracting it counts one.
            carries &-= bits(sum .< low)
            low = sum
        }

        private static func total(_ low: Bytes, _ carries: Bytes) -> UInt32 {
            var total: UInt32 = 0
            for lane in 0..<Bytes.scalarCount { total &+= UInt32(low[lane]) &+ UInt32(carries[lane]) << 8 }
            return total
        }

        private mutating func flush() {
            flushedSums &+= SIMD8<UInt32>(Self.total(low0, carry0), Self.total(low1, carry1), Self.total(low2, carry2),
                                          Self.total(low3, carry3), Self.total(low4, carry4), 0, 0, 0)
            self = MagnitudeSums(flushedSums: flushedSums)
        }

        /// The sums per filter type, in lanes 0 … 4.
        mutating func flushed() -> SIMD8<UInt32> {
            flush()
            return flushedSums
        }
    }

    /// Whichever of a, b, c is closest to p = a + b − c; ties prefer a, then b (the specification's
    /// order). With da = a − c and db = b − c: |p − a| = |db|, |p − b| = |da|, and |p − c| = |da + db|
    /// is |da| + |db| when they have the same sign (then it never wins, so saturating it at 255 is
    /// harmless) and ||da| − |db|| when they differ — all of it in 8 bits.
    @inline(__always)
    private static func paethPredictor(a: Bytes, b: Bytes, c: Bytes) -> Bytes {
        let pa = distance(b, c), pb = distance(a, c)
        let sum = pa &+ pb
        let saturated = sum | bits(sum .< pa)
        let pc = select(bits(a .>= c) ^ bits(b .>= c), distance(pa, pb), saturated)
        return select(bits(pa .<= pb) & bits(pa .<= pc), a, select(pb .<= pc, b, c))
    }

    /// One byte of every filter, for the edges of the row; returns the magnitudes per filter.
    @inline(__always)
    private static func scalarStep(_ row: UnsafePointer<UInt8>, _ above: UnsafePointer<UInt8>,
                                   _ scratch: UnsafeMutablePointer<UInt8>, _ rowBytes: Int, _ i: Int,
                                   a: UInt8, c: UInt8) -> SIMD8<UInt32> {
        let x = row[i], b = above[i]
        let pa = abs(Int(b) - Int(c)), pb = abs(Int(a) - Int(c)), pc = abs(Int(a) + Int(b) - 2 * Int(c))
        let paeth = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        let values = SIMD8<UInt8>(x, x &- a, x &- b, x &- UInt8((Int(a) + Int(b)) / 2), x &- paeth, 0, 0, 0)
        for type in 0..<typeCount { scratch[type * rowBytes + i] = values[type] }
        return SIMD8<UInt32>(truncatingIfNeeded: pointwiseMin(values, 0 &- values))
    }
}
