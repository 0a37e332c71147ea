import SplatCore

extension Preprocessor {
    /// View-dependent colour (section 9) for the `count` visible splats stored from slot `first`,
    /// whose splat indices are `indices[0..<count]`, eight at a time: dir = normalize(μ − eye) in
    /// world coordinates, colour = max(SH + 0.5, 0).
    ///
    /// The SH sum is unrolled per degree (a loop over a run-time coefficient count stayed a loop
    /// with overflow checks: 180 instructions a splat at degree 3, half the preprocessing of the
    /// stress frame).
    func shadeVisible(from first: Int, count: Int, indices: UnsafePointer<UInt32>,
                      projected: UnsafeMutablePointer<ProjectedSplat>) {
        guard count > 0 else { return }
        let colours = scene.colours
        if let codes = colours.codes, shDegree > 0 {
            shade(degree: shDegree, CodedSH(base: codes, stride: colours.codeStride), from: first, count: count,
                  indices: indices, projected: projected)
        } else if let sh = colours.sh, shDegree > 0 {
            shade(degree: shDegree, FloatSH(base: sh, perSplat: colours.perSplat), from: first, count: count,
                  indices: indices, projected: projected)
        } else {
            shade(SHBands0.self, FloatSH(base: colours.red, perSplat: 0), from: first, count: count,
                  indices: indices, projected: projected)
        }
    }

    private func shade<Source: SHCoefficientSource>(degree: Int, _ source: Source, from first: Int, count: Int,
                                                    indices: UnsafePointer<UInt32>, projected: UnsafeMutablePointer<ProjectedSplat>) {
        switch degree {
        case 1: shade(SHBands1.self, source, from: first, count: count, indices: indices, projected: projected)
        case 2: shade(SHBands2.self, source, from: first, count: count, indices: indices, projected: projected)
        default: shade(SHBands3.self, source, from: first, count: count, indices: indices, projected: projected)
        }
    }

    /// One copy per degree and coefficient form: the coefficient count is a type's constant, so
    /// every loop over coefficients is unrolled.
    private func shade<Bands: SHBandCount, Source: SHCoefficientSource>(_ bands: Bands.Type, _ source: Source, from first: Int,
                                                                       count: Int, indices: UnsafePointer<UInt32>,
                                                                       projected: UnsafeMutablePointer<ProjectedSplat>) {
        typealias V = SIMD8<Float>
        let coefficients = Bands.coefficients
        let colours = scene.colours
        let turn = colours.storedDirection
        let xs = scene.x, ys = scene.y, zs = scene.z
        let eye = view.eye
        withUnsafeTemporaryAllocation(of: V.self, capacity: 18) { block in
            let basis = block.baseAddress!
            var j = 0
            while j < count {
                let lanes = min(8, count - j)
                var index = SIMD8<Int>()
                for lane in 0..<8 { index[lane] = Int(indices[j + min(lane, lanes - 1)]) }
                // Eight consecutive splats (most blocks, when most of a chunk is visible) read
                // each column with one load instead of eight: the same values either way.
                let consecutive = lanes == 8 && index[7] &- index[0] == 7
                @inline(__always) func gather(_ p: UnsafePointer<Float>) -> V {
                    if consecutive { return UnsafeRawPointer(p + index[0]).loadUnaligned(as: V.self) }
                    return V(p[index[0]], p[index[1]], p[index[2]], p[index[3]], p[index[4]], p[index[5]], p[index[6]], p[index[7]])
                }
                let dx = gather(xs) - eye.x, dy = gather(ys) - eye.y, dz = gather(zs) - eye.z
                let length = FastSqrt.sqrt(dx * dx + dy * dy + dz * dz)
                let inv = V(repeating: 0).replacing(with: 1 / length, where: length .> 0)
                var x = dx * inv, y = dy * inv, z = dz * inv
                if coefficients > 0 {
                    if let (r0, r1, r2) = turn {
                        // The codes' frame: the SH function of the turned scene is f(Mᵀ·d).
                        let tx = r0.x * x + r0.y * y + r0.z * z
                        let ty = r1.x * x + r1.y * y + r1.z * z
                        let tz = r2.x * x + r2.y * y + r2.z * z
                        (x, y, z) = (tx, ty, tz)
                    }
                    Self.fillBasis(basis, x: x, y: y, z: z, degree: Bands.degree)
                }
                // DC and bands for the eight lanes; the same fused steps in the same order as
                // one splat at a time, so the colours do not depend on the source's layout.
                var red = SphericalHarmonics.c0 * gather(colours.red)
                var green = SphericalHarmonics.c0 * gather(colours.green)
                var blue = SphericalHarmonics.c0 * gather(colours.blue)
                if coefficients > 0 {
                    source.addBands(Bands.self, index: index, basis: basis, red: &red, green: &green, blue: &blue)
                }
                // Clamp below only: colours above 1 are legal until the final pixel (9, 14).
                red += 0.5; green += 0.5; blue += 0.5
                // Through memory, read back a float at a time: extracting variable lanes of the
                // vectors made the compiler split the clamps into per-lane branches.
                let colour = basis + 15
                colour[0] = red.replacing(with: 0, where: red .< 0)
                colour[1] = green.replacing(with: 0, where: green .< 0)
                colour[2] = blue.replacing(with: 0, where: blue .< 0)
                let channel = UnsafeRawPointer(colour).assumingMemoryBound(to: Float.self)
                for lane in 0..<lanes {
                    let slot = first &+ j &+ lane
                    projected[slot].red = channel[lane]
                    projected[slot].green = channel[8 &+ lane]
                    projected[slot].blue = channel[16 &+ lane]
                }
                j += 8
            }
        }
    }

    /// The non-DC real SH basis of `rendering.md` 9 at unit directions (x, y, z), bands 1...degree,
    /// index k = l·(l+1) + m − 1.
    @inline(__always)
    static func fillBasis(_ b: UnsafeMutablePointer<SIMD8<Float>>, x: SIMD8<Float>, y: SIMD8<Float>, z: SIMD8<Float>,
                          degree: Int) {
        let c1 = SphericalHarmonics.c1
        b[0] = -c1 * y
        b[1] = c1 * z
        b[2] = -c1 * x
        guard degree >= 2 else { return }
        let xx = x * x, yy = y * y, zz = z * z
        let xy = x * y, yz = y * z, xz = x * z
        b[3] = 1.0925484305920792 * xy
        b[4] = -1.0925484305920792 * yz
        b[5] = 0.31539156525252005 * (2 * zz - xx - yy)
        b[6] = -1.0925484305920792 * xz
        b[7] = 0.5462742152960396 * (xx - yy)
        guard degree >= 3 else { return }
        b[8] = -0.5900435899266435 * y * (3 * xx - yy)
        b[9] = 2.890611442640554 * xy * z
        b[10] = -0.4570457994644658 * y * (4 * zz - xx - yy)
        b[11] = 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy)
        b[12] = -0.4570457994644658 * x * (4 * zz - xx - yy)
        b[13] = 1.445305721320277 * z * (xx - yy)
        b[14] = -0.5900435899266435 * x * (xx - 3 * yy)
    }
}

/// Where a splat's non-DC SH coefficients come from: a protocol only so the shading loop is
/// specialised for each form, never called through a witness table.
protocol SHCoefficientSource {
    /// Adds Σₖ basisₖ · coefficientₖ (k = 0, 1, … in order, one fused multiply-add each) to the
    /// R, G, B colours of the eight lanes, whose splat indices are `index` (a short block's
    /// spare lanes repeat its last splat).
    func addBands<Bands: SHBandCount>(_ bands: Bands.Type, index: SIMD8<Int>, basis: UnsafePointer<SIMD8<Float>>,
                                      red: inout SIMD8<Float>, green: inout SIMD8<Float>, blue: inout SIMD8<Float>)
}

/// Float32 SH, one splat at a time: an unaligned 4-float load per coefficient (R, G, B and the
/// next coefficient's R, ignored); the last one is read exactly, as it may end the array.
/// Splats in lanes would need three scalar loads per coefficient and splat.
struct FloatSH: SHCoefficientSource {
    let base: UnsafePointer<Float>
    let perSplat: Int

    @inline(__always)
    func addBands<Bands: SHBandCount>(_ bands: Bands.Type, index: SIMD8<Int>, basis: UnsafePointer<SIMD8<Float>>,
                                      red: inout SIMD8<Float>, green: inout SIMD8<Float>, blue: inout SIMD8<Float>) {
        let coefficients = Bands.coefficients
        let basisLanes = UnsafeRawPointer(basis).assumingMemoryBound(to: Float.self)
        let (dcRed, dcGreen, dcBlue) = (red, green, blue)
        // Every lane is summed (spare lanes repeat a splat), into whole 16-byte slots read
        // back a float at a time: writing single lanes of a vector and then reading the vector
        // stalls store forwarding, which cost a third of the shading.
        withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 8) { sums in
            let sum = sums.baseAddress!
            for lane in 0..<8 {
                let p = base + index[lane] &* perSplat
                var colour = SIMD4(dcRed[lane], dcGreen[lane], dcBlue[lane], 0)
                for k in 0..<(coefficients - 1) {
                    let coefficient = UnsafeRawPointer(p + 3 &* k).loadUnaligned(as: SIMD4<Float>.self)
                    colour.addProduct(basisLanes[k &* 8 &+ lane], coefficient)
                }
                let last = p + 3 &* (coefficients - 1)
                colour.addProduct(basisLanes[(coefficients - 1) &* 8 &+ lane], SIMD4(last[0], last[1], last[2], 0))
                sum[lane] = colour
            }
            red = SIMD8(sum[0].x, sum[1].x, sum[2].x, sum[3].x, sum[4].x, sum[5].x, sum[6].x, sum[7].x)
            green = SIMD8(sum[0].y, sum[1].y, sum[2].y, sum[3].y, sum[4].y, sum[5].y, sum[6].y, sum[7].y)
            blue = SIMD8(sum[0].z, sum[1].z, sum[2].z, sum[3].z, sum[4].z, sum[5].z, sum[6].z, sum[7].z)
        }
    }
}

/// 8-bit codes, eight splats side by side: per coefficient one 4-byte load from each lane's run
/// (the storage's tail padding covers the last), split into channels and mapped by code/128 − 1
/// — the exact Float32 value the dequantizing decoder writes, so colours match the Float32 path
/// bit for bit. Splats in lanes take fewer instructions than one splat at a time, whose fourth
/// channel lane was wasted: the stress scene's preprocessing at 512², one thread, went from 147
/// to 123 ms.
struct CodedSH: SHCoefficientSource {
    let base: UnsafePointer<UInt8>
    let stride: Int

    @inline(__always)
    func addBands<Bands: SHBandCount>(_ bands: Bands.Type, index: SIMD8<Int>, basis: UnsafePointer<SIMD8<Float>>,
                                      red: inout SIMD8<Float>, green: inout SIMD8<Float>, blue: inout SIMD8<Float>) {
        typealias V = SIMD8<Float>
        let raw = UnsafeRawPointer(base)
        let row = index &* stride
        // 2²³ + code as a float's bits is 8388608 + code exactly (the generic integer-to-float
        // initialiser stayed an out-of-line call). One fused step then gives code/128 − 1:
        // (2¹⁶ + code/128) − 65537 is exact, so it is the same float as converting, scaling and
        // subtracting one at a time, in one instruction instead of three.
        @inline(__always) func value(_ codes: SIMD8<UInt32>) -> V {
            V(repeating: -65_537).addingProduct(unsafeBitCast(codes & 0xFF | 0x4B00_0000, to: V.self), 1.0 / 128)
        }
        for k in 0..<Bands.coefficients {
            let at = 3 &* k
            let words = SIMD8<UInt32>(raw.loadUnaligned(fromByteOffset: row[0] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[1] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[2] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[3] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[4] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[5] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[6] &+ at, as: UInt32.self),
                                      raw.loadUnaligned(fromByteOffset: row[7] &+ at, as: UInt32.self))
            let b = basis[k]
            red = red.addingProduct(b, value(words))
            green = green.addingProduct(b, value(words &>> 8))
            blue = blue.addingProduct(b, value(words &>> 16))
        }
    }
}

/// SH degrees as types, so the shading loops are specialized per degree.
protocol SHBandCount {
    static var degree: Int { get }
}

extension SHBandCount {
    /// Non-DC coefficients per channel.
    static var coefficients: Int { (degree + 1) * (degree + 1) - 1 }
}

enum SHBands0: SHBandCount { static var degree: Int { 0 } }
enum SHBands1: SHBandCount { static var degree: Int { 1 } }
enum SHBands2: SHBandCount { static var degree: Int { 2 } }
enum SHBands3: SHBandCount { static var degree: Int { 3 } }
