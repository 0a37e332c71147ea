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
        withUnsafeTemporaryAllocation(of: V.self, capacity: 16) { block in
            let basis = block.baseAddress!
            let basisLanes = UnsafeRawPointer(basis).assumingMemoryBound(to: Float.self)
            var j = 0
            while j < count {
                let lanes = min(8, count - j)
                var index = SIMD8<Int>()
                for lane in 0..<8 { index[lane] = Int(indices[j + min(lane, lanes - 1)]) }
                @inline(__always) func gather(_ p: UnsafePointer<Float>) -> V {
                    V(p[index[0]], p[index[1]], p[index[2]], p[index[3]], p[index[4]], p[index[5]], p[index[6]], p[index[7]])
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
                for lane in 0..<lanes {
                    let i = index[lane]
                    var colour = SphericalHarmonics.c0 * colours.dcCoefficient(i)
                    if coefficients > 0 {
                        for k in 0..<(coefficients - 1) {
                            colour.addProduct(basisLanes[k &* 8 &+ lane], source.coefficient(i, k))
                        }
                        colour.addProduct(basisLanes[(coefficients - 1) &* 8 &+ lane], source.lastCoefficient(i, coefficients - 1))
                    }
                    // Clamp below only: colours above 1 are legal until the final pixel (9, 14).
                    colour = (colour + 0.5).replacing(with: 0, where: colour + 0.5 .< 0)
                    let slot = first + j + lane
                    projected[slot].red = colour.x
                    projected[slot].green = colour.y
                    projected[slot].blue = colour.z
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

/// A splat's non-DC SH coefficient k as (R, G, B, unspecified): a protocol only so the shading
/// loop is specialised for each form, never called through a witness table.
protocol SHCoefficientSource {
    /// Coefficient `k` of splat `i`; may read the next coefficient's first channel into lane 3.
    func coefficient(_ i: Int, _ k: Int) -> SIMD4<Float>
    /// The splat's last coefficient, read without passing the end of the storage.
    func lastCoefficient(_ i: Int, _ k: Int) -> SIMD4<Float>
}

/// Float32 SH: an unaligned 4-float load per coefficient; the last one is read exactly, as it may
/// end the array.
struct FloatSH: SHCoefficientSource {
    let base: UnsafePointer<Float>
    let perSplat: Int

    @inline(__always) func coefficient(_ i: Int, _ k: Int) -> SIMD4<Float> {
        UnsafeRawPointer(base + (i &* perSplat &+ 3 &* k)).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always) func lastCoefficient(_ i: Int, _ k: Int) -> SIMD4<Float> {
        let p = base + (i &* perSplat &+ 3 &* k)
        return SIMD4(p[0], p[1], p[2], 0)
    }
}

/// 8-bit codes: one 4-byte load per coefficient (the storage's tail padding covers the last),
/// widened and mapped by code/128 − 1 — the exact Float32 value the dequantizing decoder writes,
/// so colours match the Float32 path bit for bit.
struct CodedSH: SHCoefficientSource {
    let base: UnsafePointer<UInt8>
    let stride: Int

    @inline(__always) func coefficient(_ i: Int, _ k: Int) -> SIMD4<Float> {
        let bytes = UnsafeRawPointer(base + (i &* stride &+ 3 &* k)).loadUnaligned(as: SIMD4<UInt8>.self)
        let wide = SIMD4<Int32>(truncatingIfNeeded: bytes)
        let value = SIMD4<Float>(wide)
        return value * (1.0 / 128) - 1
    }

    @inline(__always) func lastCoefficient(_ i: Int, _ k: Int) -> SIMD4<Float> { coefficient(i, k) }
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
