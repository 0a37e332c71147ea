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
        var v0 = SIMD16<UInt32>(), v1 = v0, v2 = v0, v3 = v0, v4 = v0
        while i + 16 <= rowBytes {
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
            v0 &+= magnitude(x)
            v1 &+= magnitude(sub)
            v2 &+= magnitude(up)
            v3 &+= magnitude(average)
            v4 &+= magnitude(paeth)
            i += 16
        }
        sums &+= SIMD8<UInt32>(v0.wrappedSum(), v1.wrappedSum(), v2.wrappedSum(), v3.wrappedSum(), v4.wrappedSum(), 0, 0, 0)
        while i < rowBytes {
            sums &+= scalarStep(row, above, scratch, rowBytes, i, a: row[i - bpp], c: above[i - bpp])
            i += 1
        }
        var best = 0
        for type in 1..<typeCount where sums[type] < sums[best] { best = type }
        out[0] = UInt8(best)
        (out + 1).update(from: scratch + best * rowBytes, count: rowBytes)
    }

    @inline(__always)
    private static func load(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt8> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
    }

    @inline(__always)
    private static func store(_ v: SIMD16<UInt8>, _ p: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<UInt8>.self)
    }

    /// |v| of each byte read as a signed value (0x80 counts 128), widened for summing.
    @inline(__always)
    private static func magnitude(_ v: SIMD16<UInt8>) -> SIMD16<UInt32> {
        SIMD16<UInt32>(truncatingIfNeeded: pointwiseMin(v, 0 &- v))
    }

    /// Whichever of a, b, c is closest to a + b − c; ties prefer a, then b (the specification's order).
    @inline(__always)
    private static func paethPredictor(a: SIMD16<UInt8>, b: SIMD16<UInt8>, c: SIMD16<UInt8>) -> SIMD16<UInt8> {
        let a16 = SIMD16<Int16>(truncatingIfNeeded: a), b16 = SIMD16<Int16>(truncatingIfNeeded: b)
        let c16 = SIMD16<Int16>(truncatingIfNeeded: c)
        let toA = b16 &- c16, toB = a16 &- c16
        let pa = pointwiseMax(toA, 0 &- toA), pb = pointwiseMax(toB, 0 &- toB)
        let sum = toA &+ toB
        let pc = pointwiseMax(sum, 0 &- sum)
        var predictor = c16
        predictor.replace(with: b16, where: pb .<= pc)
        predictor.replace(with: a16, where: (pa .<= pb) .& (pa .<= pc))
        return SIMD16<UInt8>(truncatingIfNeeded: predictor)
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
