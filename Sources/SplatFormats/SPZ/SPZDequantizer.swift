import SplatCore

/// Turns packed SPZ attribute bytes into the scene's Float columns (`formats.md` 2.5). Every
/// function handles `count` consecutive splats: `src` points at the first splat's bytes of one
/// block, the destinations at the first splat's floats, so callers can hand out chunks (of a
/// payload, of a stream as it inflates) to several threads. The float operations follow the
/// reference decoder's order, so values match it bit for bit except where the spec differs
/// (clamped square roots, normalized quaternions).
///
/// The loops are plain, branch-free scalar code over unsafe pointers: LLVM vectorizes them
/// (byte → float conversions, selects, square roots, divisions), and measured 2–3× faster than
/// the same steps written with Swift's SIMD types, whose lane conversions and masked `replace`
/// compile to per-lane code.
enum SPZDequantizer {
    /// SPZ's DC colour scale (`SPZ_COLOR_SCALE`).
    static let colorScale: Float = 0.15
    static let sqrt1_2: Float = 0.707106781186547524401

    // MARK: positions

    /// Three signed 24-bit little-endian integers per splat, scaled by 2^−fractionalBits.
    static func positions24(_ src: UnsafePointer<UInt8>, count: Int, fractionalBits: Int,
                            x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, z: UnsafeMutablePointer<Float>) {
        let scale = Float(sign: .plus, exponent: -fractionalBits, significand: 1)
        @inline(__always) func coordinate(_ o: Int) -> Float {
            let v = Int32(src[o]) | Int32(src[o + 1]) << 8 | Int32(src[o + 2]) << 16
            // Shifting the 24 bits to the top and back sign-extends them.
            return Float((v << 8) >> 8) * scale
        }
        for i in 0..<count {
            x[i] = coordinate(9 * i)
            y[i] = coordinate(9 * i + 3)
            z[i] = coordinate(9 * i + 6)
        }
    }

    /// Three IEEE binary16 values per splat (v1).
    static func positionsHalf(_ src: UnsafePointer<UInt8>, count: Int,
                              x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, z: UnsafeMutablePointer<Float>) {
        func half(_ o: Int) -> Float { halfToFloat(UInt16(src[o]) | UInt16(src[o + 1]) << 8) }
        for i in 0..<count {
            x[i] = half(6 * i)
            y[i] = half(6 * i + 2)
            z[i] = half(6 * i + 4)
        }
    }

    /// binary16 → binary32, exact (subnormals, infinities and NaN included).
    static func halfToFloat(_ h: UInt16) -> Float {
        let sign = UInt32(h & 0x8000) << 16
        let exponent = Int(h >> 10) & 0x1F
        let mantissa = UInt32(h & 0x3FF)
        if exponent == 0x1F {
            return Float(bitPattern: sign | 0x7F80_0000 | mantissa << 13)
        }
        if exponent == 0 {
            // Zero or subnormal: mantissa · 2^−24, exact in Float.
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            return sign != 0 ? -magnitude : magnitude
        }
        return Float(bitPattern: sign | UInt32(exponent + 112) << 23 | mantissa << 13)
    }

    // MARK: scalar attributes

    /// `alpha = byte / 255`.
    static func alphas(_ src: UnsafePointer<UInt8>, count: Int, into dst: UnsafeMutablePointer<Float>) {
        for i in 0..<count { dst[i] = Float(src[i]) / 255 }
    }

    /// `dc = (byte/255 − 0.5) / 0.15`, three interleaved channels per splat.
    static func colors(_ src: UnsafePointer<UInt8>, count: Int,
                       r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        let scale = colorScale
        for i in 0..<count {
            r[i] = (Float(src[3 * i]) / 255 - 0.5) / scale
            g[i] = (Float(src[3 * i + 1]) / 255 - 0.5) / scale
            b[i] = (Float(src[3 * i + 2]) / 255 - 0.5) / scale
        }
    }

    /// `logScale = byte/16 − 10`, three interleaved axes per splat.
    static func scales(_ src: UnsafePointer<UInt8>, count: Int,
                       x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, z: UnsafeMutablePointer<Float>) {
        for i in 0..<count {
            x[i] = Float(src[3 * i]) / 16 - 10
            y[i] = Float(src[3 * i + 1]) / 16 - 10
            z[i] = Float(src[3 * i + 2]) / 16 - 10
        }
    }

    // MARK: rotations

    /// Destination columns of a rotation decode, (w, x, y, z).
    struct RotationColumns {
        var w: UnsafeMutablePointer<Float>
        var x: UnsafeMutablePointer<Float>
        var y: UnsafeMutablePointer<Float>
        var z: UnsafeMutablePointer<Float>
    }

    /// v1/v2 "first three": x, y, z bytes as `byte/127.5 − 1`, w = sqrt(max(0, 1 − |xyz|²)), then
    /// normalized. The length is never zero: an integer byte never decodes to exactly 0.
    static func rotationsFirstThree(_ src: UnsafePointer<UInt8>, count: Int, into q: RotationColumns) {
        let step: Float = 1 / 127.5
        for i in 0..<count {
            let x = Float(src[3 * i]) * step - 1
            let y = Float(src[3 * i + 1]) * step - 1
            let z = Float(src[3 * i + 2]) * step - 1
            let w = max(0, 1 - (x * x + y * y + z * z)).squareRoot()
            store(w: w, x: x, y: y, z: z, at: i, in: q)
        }
    }

    /// v3/v4 "smallest three": a u32 with the index of the largest component in bits 31–30 and
    /// three 10-bit signed magnitudes (`formats.md` 2.5); the largest is rebuilt with the square
    /// root clamped at zero, then the quaternion is normalized. The length is never zero: with
    /// all three stored components 0 the rebuilt one is 1.
    static func rotationsSmallestThree(_ src: UnsafePointer<UInt8>, count: Int, into q: RotationColumns) {
        for i in 0..<count {
            let word = UInt32(src[4 * i]) | UInt32(src[4 * i + 1]) << 8 | UInt32(src[4 * i + 2]) << 16 | UInt32(src[4 * i + 3]) << 24
            let largest = word >> 30
            // Fields from the low end hold the highest stored index first.
            let high = component(word & 0x3FF), middle = component((word >> 10) & 0x3FF), low = component((word >> 20) & 0x3FF)
            // The reference's summation order (highest index first).
            let sumSquares = high * high + middle * middle + low * low
            let rebuilt = max(0, 1 - sumSquares).squareRoot()
            // Stored components fill the indices ≠ largest in increasing order (x, y, z, w = 0…3).
            let x = largest == 0 ? rebuilt : low
            let y = largest == 0 ? low : (largest == 1 ? rebuilt : middle)
            let z = largest <= 1 ? middle : (largest == 2 ? rebuilt : high)
            let w = largest == 3 ? rebuilt : high
            store(w: w, x: x, y: y, z: z, at: i, in: q)
        }
    }

    /// A 10-bit field as ±(m/511)·√½ in the reference's operation order. The sign is applied to
    /// the bit pattern, so a stored sign on magnitude 0 gives −0 as the reference's negation does
    /// (an encoder can then write the same sign bit back).
    @inline(__always) private static func component(_ field: UInt32) -> Float {
        let v = sqrt1_2 * Float(Int32(field & 0x1FF)) / 511
        return Float(bitPattern: v.bitPattern ^ ((field & 0x200) << 22))
    }

    /// Normalizes and stores one quaternion. SPZ's encodings cannot produce a zero-length one
    /// (see the callers), so no warning is ever due; the identity fallback of `formats.md` 0.1 is
    /// kept anyway, as selects: a branch or a counter here stops the loops from vectorizing.
    @inline(__always) private static func store(w: Float, x: Float, y: Float, z: Float, at i: Int, in q: RotationColumns) {
        let norm = (w * w + x * x + y * y + z * z).squareRoot()
        let zero = norm == 0
        let divisor = zero ? 1 : norm
        q.w[i] = zero ? 1 : w / divisor
        q.x[i] = zero ? 0 : x / divisor
        q.y[i] = zero ? 0 : y / divisor
        q.z[i] = zero ? 0 : z / divisor
    }

    // MARK: spherical harmonics

    /// `value = (byte − 128) / 128` for `count` splats. The file's layout (coefficient-major,
    /// channel-minor per splat) is the scene's, so when every band is kept this is one straight
    /// conversion; otherwise the first `keptFloats` of each splat's `fileFloats` are taken.
    static func sh(_ src: UnsafePointer<UInt8>, count: Int, fileFloats: Int, keptFloats: Int,
                   into dst: UnsafeMutablePointer<Float>) {
        if keptFloats == fileFloats {
            convertSH(src, count: count * fileFloats, into: dst)
        } else {
            for i in 0..<count {
                convertSH(src + i * fileFloats, count: keptFloats, into: dst + i * keptFloats)
            }
        }
    }

    /// Converts `count` SH bytes stored in the last quarter of `region` (at byte offset
    /// `3·count`) into `count` floats filling the whole region, in place.
    ///
    /// Converting index j writes bytes [4j, 4j+4), which lie below every byte not yet read
    /// (3·count + j′ for j′ > j), so a front-to-back pass is safe. In parallel: the first ¾ of
    /// the remaining bytes write only below the packed bytes, so any number of threads may convert
    /// them at once; what remains has the same shape (packed bytes in the last quarter of its
    /// floats) at a quarter of the size, and is handled the same way until it is small enough for
    /// one thread, which copies each block aside before overwriting it.
    /// `chunk` is the parallel work unit in bytes (smaller only in tests).
    /// A cancelled token stops the conversion between chunks (the caller then throws).
    /// `converted` leading codes are already done (`SHInflationFollower`); at most ⌊¾·count⌋.
    static func shInPlace(_ region: UnsafeMutableRawPointer, count: Int, chunk: Int = 1 << 20,
                          converted: Int = 0, cancellation: CancellationToken? = nil) {
        var base = 0, remaining = count, skip = converted
        while remaining > 4 * chunk || skip > 0 {
            let free = 3 * remaining / 4
            let src = (region + base + 3 * remaining).assumingMemoryBound(to: UInt8.self)
            let dst = (region + base).assumingMemoryBound(to: Float.self)
            guard Parallel.forEachChunk(count: free - skip, chunkSize: chunk, cancellation: cancellation, { _, range in
                let j = skip + range.lowerBound
                convertSH(src + j, count: range.count, into: dst + j)
            }) else { return }
            base += 4 * free
            remaining -= free
            skip = 0
        }
        let src = (region + base + 3 * remaining).assumingMemoryBound(to: UInt8.self)
        let dst = (region + base).assumingMemoryBound(to: Float.self)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 4096) { block in
            var j = 0
            while j < remaining {
                let n = min(4096, remaining - j)
                block.baseAddress!.update(from: src + j, count: n)
                convertSH(block.baseAddress!, count: n, into: dst + j)
                j += n
            }
        }
    }

    @inline(__always) static func convertSH(_ src: UnsafePointer<UInt8>, count: Int, into dst: UnsafeMutablePointer<Float>) {
        // (b − 128)/128 = b·2^−7 − 1, both steps exact in Float.
        let step: Float = 1.0 / 128
        for j in 0..<count { dst[j] = Float(src[j]) * step - 1 }
    }
}
