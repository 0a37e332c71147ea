import SplatCore

/// Turns packed SPZ attribute bytes into the scene's Float columns (`formats.md` 2.5). Every
/// function handles `count` consecutive splats: `src` points at the first splat's bytes of one
/// block, the destinations at the first splat's floats, so callers can hand out chunks (of a
/// payload, of a stream as it inflates) to several threads. The float operations follow the
/// reference decoder's order, so values match it bit for bit except where the spec differs
/// (clamped square roots, normalized quaternions).
enum SPZDequantizer {
    /// SPZ's DC colour scale (`SPZ_COLOR_SCALE`).
    static let colorScale: Float = 0.15
    static let sqrt1_2: Float = 0.707106781186547524401

    /// `dc = (byte/255 − 0.5) / 0.15` for every byte value, computed once in the reference's
    /// Float order; the interleaved colour block is then three table lookups per splat.
    static let colorTable: [Float] = (0..<256).map { (Float($0) / 255 - 0.5) / colorScale }

    // MARK: positions

    /// Three signed 24-bit little-endian integers per splat, scaled by 2^−fractionalBits.
    static func positions24(_ src: UnsafePointer<UInt8>, count: Int, fractionalBits: Int,
                            x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>, z: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        let scale = Float(sign: .plus, exponent: -fractionalBits, significand: 1)
        let raw = UnsafeRawPointer(src)
        // A 4-byte load at each coordinate reads one byte past it; that byte belongs to the next
        // splat except for the last one, which is read byte by byte.
        for i in 0..<(count - 1) {
            let o = 9 * i
            x[i] = Float(signExtend24(raw.loadUnaligned(fromByteOffset: o, as: UInt32.self).littleEndian)) * scale
            y[i] = Float(signExtend24(raw.loadUnaligned(fromByteOffset: o + 3, as: UInt32.self).littleEndian)) * scale
            z[i] = Float(signExtend24(raw.loadUnaligned(fromByteOffset: o + 6, as: UInt32.self).littleEndian)) * scale
        }
        let last = count - 1, o = 9 * last
        func at(_ k: Int) -> Float {
            let v = UInt32(src[o + k]) | UInt32(src[o + k + 1]) << 8 | UInt32(src[o + k + 2]) << 16
            return Float(signExtend24(v)) * scale
        }
        x[last] = at(0)
        y[last] = at(3)
        z[last] = at(6)
    }

    /// Low 24 bits of `v` as a signed value.
    @inline(__always) static func signExtend24(_ v: UInt32) -> Int32 {
        Int32(bitPattern: v << 8) >> 8
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
        var i = 0
        while i + 16 <= count {
            let bytes = UnsafeRawPointer(src + i).loadUnaligned(as: SIMD16<UInt8>.self)
            let v = SIMD16<Float>(SIMD16<Int32>(truncatingIfNeeded: bytes)) / 255
            UnsafeMutableRawPointer(dst + i).storeBytes(of: v, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count {
            dst[i] = Float(src[i]) / 255
            i += 1
        }
    }

    /// `dc = (byte/255 − 0.5) / 0.15`, three interleaved channels per splat.
    static func colors(_ src: UnsafePointer<UInt8>, count: Int,
                       r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>) {
        colorTable.withUnsafeBufferPointer { table in
            let t = table.baseAddress!
            for i in 0..<count {
                r[i] = t[Int(src[3 * i])]
                g[i] = t[Int(src[3 * i + 1])]
                b[i] = t[Int(src[3 * i + 2])]
            }
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

        func advanced(by n: Int) -> RotationColumns {
            RotationColumns(w: w + n, x: x + n, y: y + n, z: z + n)
        }
    }

    /// v1/v2 "first three": x, y, z bytes as `byte/127.5 − 1`, w = sqrt(max(0, 1 − |xyz|²)), then
    /// normalized. Returns how many quaternions had zero length (set to identity).
    static func rotationsFirstThree(_ src: UnsafePointer<UInt8>, count: Int, into q: RotationColumns) -> Int {
        var degenerate = 0
        let step: Float = 1 / 127.5
        for i in 0..<count {
            let x = Float(src[3 * i]) * step - 1
            let y = Float(src[3 * i + 1]) * step - 1
            let z = Float(src[3 * i + 2]) * step - 1
            let w = max(0, 1 - (x * x + y * y + z * z)).squareRoot()
            degenerate += store(w: w, x: x, y: y, z: z, at: i, in: q)
        }
        return degenerate
    }

    /// v3/v4 "smallest three": a u32 with the index of the largest component in bits 31–30 and
    /// three 10-bit signed magnitudes (`formats.md` 2.5); the largest is rebuilt with the square
    /// root clamped at zero, then the quaternion is normalized. Returns the zero-length count.
    static func rotationsSmallestThree(_ src: UnsafePointer<UInt8>, count: Int, into q: RotationColumns) -> Int {
        var degenerate = 0
        var i = 0
        #if _endian(little)
        let raw = UnsafeRawPointer(src)
        while i + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD8<UInt32>.self)
            let largest = word &>> 30
            // Fields from the low end: the highest stored index first.
            let high = component(word & 0x3FF)
            let middle = component((word &>> 10) & 0x3FF)
            let low = component((word &>> 20) & 0x3FF)
            // Same summation order as the reference (highest index first).
            let sumSquares = high * high + middle * middle + low * low
            let rebuilt = pointwiseMax(SIMD8<Float>(repeating: 0), 1 - sumSquares).squareRoot()
            // Stored components fill the indices ≠ largest in increasing order (x, y, z, w = 0…3).
            let isX = largest .== 0, isY = largest .== 1, isZ = largest .== 2, isW = largest .== 3
            var x = low, y = middle, z = high, w = high
            x.replace(with: rebuilt, where: isX)
            y.replace(with: low, where: isX)
            y.replace(with: rebuilt, where: isY)
            z.replace(with: middle, where: isX .| isY)
            z.replace(with: rebuilt, where: isZ)
            w.replace(with: rebuilt, where: isW)
            let norm = (w * w + x * x + y * y + z * z).squareRoot()
            let zero = norm .== 0
            if any(zero) {
                let one = SIMD8<Float>(repeating: 1)
                degenerate += zero.indices.reduce(0) { $0 + (zero[$1] ? 1 : 0) }
                w.replace(with: one, where: zero)
                x.replace(with: 0, where: zero)
                y.replace(with: 0, where: zero)
                z.replace(with: 0, where: zero)
                let safe = norm.replacing(with: one, where: zero)
                storeSIMD(w / safe, x / safe, y / safe, z / safe, at: i, in: q)
            } else {
                storeSIMD(w / norm, x / norm, y / norm, z / norm, at: i, in: q)
            }
            i += 8
        }
        #endif
        let mask: UInt32 = 0x1FF
        while i < count {
            var word = UInt32(src[4 * i]) | UInt32(src[4 * i + 1]) << 8 | UInt32(src[4 * i + 2]) << 16 | UInt32(src[4 * i + 3]) << 24
            let largest = Int(word >> 30)
            var xyzw: (Float, Float, Float, Float) = (0, 0, 0, 0)
            var sumSquares: Float = 0
            withUnsafeMutableBytes(of: &xyzw) { raw in
                let c = raw.bindMemory(to: Float.self)
                for k in stride(from: 3, through: 0, by: -1) where k != largest {
                    let magnitude = Float(word & mask)
                    var v = sqrt1_2 * magnitude / 511
                    if (word >> 9) & 1 == 1 { v = -v }
                    word >>= 10
                    c[k] = v
                    sumSquares += v * v
                }
                c[largest] = max(0, 1 - sumSquares).squareRoot()
            }
            degenerate += store(w: xyzw.3, x: xyzw.0, y: xyzw.1, z: xyzw.2, at: i, in: q)
            i += 1
        }
        return degenerate
    }

    /// A 10-bit field as ±(m/511)·√½, in the reference's operation order.
    @inline(__always) private static func component(_ field: SIMD8<UInt32>) -> SIMD8<Float> {
        let magnitude = SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: field & 0x1FF))
        let v = sqrt1_2 * magnitude / 511
        // Multiplying by −1 (not SIMD's prefix minus, which is 0 − v) keeps a stored sign on a
        // zero magnitude as −0, like the reference's scalar negation; an encoder can then write
        // the same sign bit back.
        return v * SIMD8<Float>(repeating: 1).replacing(with: -1, where: (field & 0x200) .!= 0)
    }

    @inline(__always) private static func storeSIMD(_ w: SIMD8<Float>, _ x: SIMD8<Float>, _ y: SIMD8<Float>, _ z: SIMD8<Float>,
                                                    at i: Int, in q: RotationColumns) {
        UnsafeMutableRawPointer(q.w + i).storeBytes(of: w, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(q.x + i).storeBytes(of: x, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(q.y + i).storeBytes(of: y, as: SIMD8<Float>.self)
        UnsafeMutableRawPointer(q.z + i).storeBytes(of: z, as: SIMD8<Float>.self)
    }

    /// Normalizes and stores one quaternion; a zero-length one becomes identity (returns 1).
    @inline(__always) private static func store(w: Float, x: Float, y: Float, z: Float, at i: Int, in q: RotationColumns) -> Int {
        let norm = (w * w + x * x + y * y + z * z).squareRoot()
        if norm == 0 {
            q.w[i] = 1; q.x[i] = 0; q.y[i] = 0; q.z[i] = 0
            return 1
        }
        q.w[i] = w / norm; q.x[i] = x / norm; q.y[i] = y / norm; q.z[i] = z / norm
        return 0
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

    @inline(__always) private static func convertSH(_ src: UnsafePointer<UInt8>, count: Int, into dst: UnsafeMutablePointer<Float>) {
        // (b − 128)/128 = b·2^−7 − 1, both steps exact in Float.
        let step: Float = 1.0 / 128
        var j = 0
        let raw = UnsafeRawPointer(src)
        let out = UnsafeMutableRawPointer(dst)
        while j + 16 <= count {
            let bytes = raw.loadUnaligned(fromByteOffset: j, as: SIMD16<UInt8>.self)
            let v = SIMD16<Float>(SIMD16<Int32>(truncatingIfNeeded: bytes)) * step - 1
            out.storeBytes(of: v, toByteOffset: 4 * j, as: SIMD16<Float>.self)
            j += 16
        }
        while j < count {
            dst[j] = Float(src[j]) * step - 1
            j += 1
        }
    }
}
