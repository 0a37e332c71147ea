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
        switch shDegree {
        case 1: shade(SHBands1.self, from: first, count: count, indices: indices, projected: projected)
        case 2: shade(SHBands2.self, from: first, count: count, indices: indices, projected: projected)
        case 3: shade(SHBands3.self, from: first, count: count, indices: indices, projected: projected)
        default: shade(SHBands0.self, from: first, count: count, indices: indices, projected: projected)
        }
    }

    /// One copy per degree: the coefficient count is a type's constant, so every loop over
    /// coefficients is unrolled.
    private func shade<Bands: SHBandCount>(_ bands: Bands.Type, from first: Int, count: Int, indices: UnsafePointer<UInt32>,
                                           projected: UnsafeMutablePointer<ProjectedSplat>) {
        typealias V = SIMD8<Float>
        let coefficients = Bands.coefficients
        let colours = scene.colours
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
                let x = dx * inv, y = dy * inv, z = dz * inv
                if coefficients > 0, colours.sh != nil { Self.fillBasis(basis, x: x, y: y, z: z, degree: Bands.degree) }
                for lane in 0..<lanes {
                    let i = index[lane]
                    var colour = SphericalHarmonics.c0 * colours.dcCoefficient(i)
                    if coefficients > 0, let sh = colours.sh {
                        // One splat's coefficients are contiguous (R, G, B per coefficient): an
                        // unaligned 4-float load per coefficient, the 4th lane ignored; the last
                        // coefficient is read exactly, as it may end the array.
                        let p = sh + i &* colours.perSplat
                        for k in 0..<(coefficients - 1) {
                            colour.addProduct(basisLanes[k &* 8 &+ lane], UnsafeRawPointer(p + 3 &* k).loadUnaligned(as: SIMD4<Float>.self))
                        }
                        let last = 3 &* (coefficients - 1)
                        colour.addProduct(basisLanes[(coefficients - 1) &* 8 &+ lane], SIMD4(p[last], p[last &+ 1], p[last &+ 2], 0))
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
