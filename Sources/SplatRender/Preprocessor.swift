import SplatCore

/// Per-frame, per-splat work (`rendering.md` 4–7, 9): camera transform, near-plane and opacity
/// culls, EWA projection with the Jacobian clamp, 0.3 px² dilation and the anti-aliasing
/// compensation, conic, INRIA radius and tile rectangle intersected with the opacity-aware box,
/// then SH colour for the survivors only. SIMD over blocks of 8 splats, one chunk per task.
///
/// The lateral cull is the tile rectangle itself, computed for the whole block before any SH
/// work: a splat is dropped exactly when its (rectangle ∩ box) holds no tile, so nothing that
/// would touch a tile is lost, and off-screen splats never pay for SH.
///
/// Visible splats of chunk c are written compacted, in index order, at `c·chunkSize ..<
/// c·chunkSize + visibleInChunk[c]` of the output tables, so no global prefix sum is needed.
struct Preprocessor {
    /// Splats per task (a multiple of 8; independent of the thread count).
    static let chunkSize = 8192
    static let minAlpha: Float = 1.0 / 255.0
    static let dilation: Float = 0.3
    static let antialiasFloor: Float = 2.5e-5
    static let discriminantFloor: Float = 0.1

    struct Output {
        let projected: AlignedBuffer<ProjectedSplat>
        let binInfo: AlignedBuffer<SplatBinInfo>
        let visibleInChunk: [Int]
        let visibleCount: Int
        let pairCount: Int
    }

    let prepared: PreparedScene
    let view: ViewProjection
    let antialiased: Bool
    let shDegree: Int
    /// Tests only: bin into INRIA's rectangle alone, without the opacity-aware box.
    var exhaustive = false
    /// Column bases, looked up once (each lookup is a cross-module call).
    private let xs: UnsafePointer<Float>, ys: UnsafePointer<Float>, zs: UnsafePointer<Float>

    init(prepared: PreparedScene, view: ViewProjection, antialiased: Bool, shDegree: Int) {
        self.prepared = prepared
        self.view = view
        self.antialiased = antialiased
        self.shDegree = shDegree
        xs = UnsafePointer(prepared.scene.columnBase(.x))
        ys = UnsafePointer(prepared.scene.columnBase(.y))
        zs = UnsafePointer(prepared.scene.columnBase(.z))
    }

    /// A cancelled token stops it between chunks (chunks not run count no visible splats); the
    /// renderer then throws instead of using the output.
    func run(threads: Int?, scratch: FrameScratch = FrameScratch(), cancellation: CancellationToken? = nil) -> Output {
        let n = prepared.count
        let chunks = (n + Self.chunkSize - 1) / Self.chunkSize
        FrameScratch.ensure(&scratch.projected, n)
        FrameScratch.ensure(&scratch.binInfo, n)
        let projected = scratch.projected, binInfo = scratch.binInfo
        let counts = AlignedBuffer<Int>(count: max(chunks, 1), zeroed: true)
        let pairs = AlignedBuffer<Int>(count: max(chunks, 1), zeroed: true)
        Parallel.forEachChunk(count: n, chunkSize: Self.chunkSize, threads: threads, cancellation: cancellation) { chunk, range in
            var visible = 0
            var pairCount = 0
            var i = range.lowerBound
            while i < range.upperBound {
                projectBlock(at: i, end: range.upperBound, out: range.lowerBound, visible: &visible, pairs: &pairCount,
                             projected: projected.base, binInfo: binInfo.base)
                i += 8
            }
            shadeVisible(from: range.lowerBound, count: visible, projected: projected.base, binInfo: binInfo.base)
            counts[chunk] = visible
            pairs[chunk] = pairCount
        }
        var visibleInChunk = [Int](repeating: 0, count: chunks)
        var totalVisible = 0, totalPairs = 0
        for c in 0..<chunks {
            visibleInChunk[c] = counts[c]
            totalVisible += counts[c]
            totalPairs += pairs[c]
        }
        return Output(projected: projected, binInfo: binInfo, visibleInChunk: visibleInChunk,
                      visibleCount: totalVisible, pairCount: totalPairs)
    }

    /// Projects splats i..<min(i + 8, end) and appends the visible ones at `out + visible`.
    @inline(__always)
    private func projectBlock(at i: Int, end: Int, out: Int, visible: inout Int, pairs: inout Int,
                              projected: UnsafeMutablePointer<ProjectedSplat>,
                              binInfo: UnsafeMutablePointer<SplatBinInfo>) {
        typealias V = SIMD8<Float>
        typealias Mask = SIMDMask<SIMD8<Int32>>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V {
            UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
        }
        @inline(__always) func finite(_ v: V) -> Mask { (v - v) .== 0 }
        let o = load(prepared.opacity.base)
        let px = load(xs), py = load(ys), pz = load(zs)
        let r0 = view.r0, r1 = view.r1, r2 = view.r2, t = view.translation
        let tz = r2.x * px + r2.y * py + r2.z * pz + t.z
        var mask = (tz .> view.near) .& (o .>= Self.minAlpha)
        let lanes = end - i
        if lanes < 8 { mask = mask .& (SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .< Int32(lanes)) }
        guard any(mask) else { return }
        let tx = r0.x * px + r0.y * py + r0.z * pz + t.x
        let ty = r1.x * px + r1.y * py + r1.z * pz + t.y

        let invZ = 1 / tz
        // Jacobian at the lateral position clamped to 1.3× the half-FOV tangent (5.2); the
        // projected centre itself is not clamped.
        let txc = tz * (tx * invZ).within(-view.limitX, view.limitX)
        let tyc = tz * (ty * invZ).within(-view.limitY, view.limitY)
        let j00 = view.fx * invZ, j11 = view.fy * invZ
        let j02 = -view.fx * txc * invZ * invZ
        let j12 = -view.fy * tyc * invZ * invZ
        // T = J·R (2×3), then Σ' = T·Σ·Tᵀ.
        let a0 = j00 * r0.x + j02 * r2.x, a1 = j00 * r0.y + j02 * r2.y, a2 = j00 * r0.z + j02 * r2.z
        let b0 = j11 * r1.x + j12 * r2.x, b1 = j11 * r1.y + j12 * r2.y, b2 = j11 * r1.z + j12 * r2.z
        let cov = prepared.covariance.base, stride = prepared.stride
        let s00 = load(cov), s01 = load(cov + stride), s02 = load(cov + 2 * stride)
        let s11 = load(cov + 3 * stride), s12 = load(cov + 4 * stride), s22 = load(cov + 5 * stride)
        let sa0 = s00 * a0 + s01 * a1 + s02 * a2
        let sa1 = s01 * a0 + s11 * a1 + s12 * a2
        let sa2 = s02 * a0 + s12 * a1 + s22 * a2
        let covA = a0 * sa0 + a1 * sa1 + a2 * sa2
        let covB = b0 * sa0 + b1 * sa1 + b2 * sa2
        let sb0 = s00 * b0 + s01 * b1 + s02 * b2
        let sb1 = s01 * b0 + s11 * b1 + s12 * b2
        let sb2 = s02 * b0 + s12 * b1 + s22 * b2
        let covC = b0 * sb0 + b1 * sb1 + b2 * sb2

        // Low-pass dilation, and for antialiased scenes the energy-preserving opacity scale (5.3).
        let aPlus = covA + Self.dilation, cPlus = covC + Self.dilation
        let detPlus = aPlus * cPlus - covB * covB
        var oEff = o
        if antialiased {
            let det = covA * covC - covB * covB
            oEff = o * FastSqrt.sqrt((det / detPlus).atLeast(Self.antialiasFloor))
        }
        mask = mask .& (detPlus .> 0) .& finite(detPlus) .& (oEff .>= Self.minAlpha)
        guard any(mask) else { return }
        let invDet = 1 / detPlus
        let conicA = cPlus * invDet, conicB = -covB * invDet, conicC = aPlus * invDet

        // INRIA radius: 3σ of the larger eigenvalue, with the 0.1 floor on the discriminant (6.2).
        let mid = 0.5 * (aPlus + cPlus)
        let disc = (mid * mid - detPlus).atLeast(Self.discriminantFloor)
        let radius = (3 * FastSqrt.sqrt(mid + FastSqrt.sqrt(disc))).rounded(.up)
        let u = view.fx * tx * invZ + view.cx
        let v = view.fy * ty * invZ + view.cy
        mask = mask .& finite(u) .& finite(v) .& finite(radius)
        guard any(mask) else { return }

        let gx = V(repeating: Float(view.tilesX)), gy = V(repeating: Float(view.tilesY))
        let zero = V(repeating: 0)
        // INRIA rectangle in its shifted pixel coordinates (u − 0.5, v − 0.5), truncated (7).
        let pu = u - 0.5, pv = v - 0.5
        var minX = ((pu - radius) * 0.0625).atLeast(zero).atMost(gx).rounded(.towardZero)
        var maxX = ((pu + radius + 15) * 0.0625).atLeast(zero).atMost(gx).rounded(.towardZero)
        var minY = ((pv - radius) * 0.0625).atLeast(zero).atMost(gy).rounded(.towardZero)
        var maxY = ((pv + radius + 15) * 0.0625).atLeast(zero).atMost(gy).rounded(.towardZero)

        // Opacity-aware box (6.3): α ≥ 1/255 only where the squared Mahalanobis distance is at most
        // k² = 2·ln(255·o_eff), i.e. within k·√a⁺ of u and k·√c⁺ of v. Intersecting it with the
        // rectangle removes only tiles that receive nothing. The margins cover float error in the
        // exponent (which grows with the splat's size) and in the fast log.
        let logOpacity = FastLog.log(255 * oEff).atLeast(0)
        let k = FastSqrt.sqrt(2 * (logOpacity + 1e-3))
        let boxX = k * FastSqrt.sqrt(aPlus) * (1 + 4e-6 * aPlus) + 1
        let boxY = k * FastSqrt.sqrt(cPlus) * (1 + 4e-6 * cPlus) + 1
        if !exhaustive {
            minX = minX.replacing(with: ((u - boxX) * 0.0625).rounded(.down), where: ((u - boxX) * 0.0625).rounded(.down) .> minX)
            maxX = maxX.replacing(with: ((u + boxX) * 0.0625).rounded(.up), where: ((u + boxX) * 0.0625).rounded(.up) .< maxX)
            minY = minY.replacing(with: ((v - boxY) * 0.0625).rounded(.down), where: ((v - boxY) * 0.0625).rounded(.down) .> minY)
            maxY = maxY.replacing(with: ((v + boxY) * 0.0625).rounded(.up), where: ((v + boxY) * 0.0625).rounded(.up) .< maxY)
        }
        let tiles = (maxX - minX).atLeast(zero).atMost(gx) * (maxY - minY).atLeast(zero).atMost(gy)
        mask = mask .& (tiles .> 0)
        guard any(mask) else { return }

        let threshold = -logOpacity - 1e-3
        let rowCoef = -0.5 * (conicC - conicB * conicB / conicA)
        let columnCoef = -0.5 * (conicA - conicB * conicB / conicC)
        let infinity = V(repeating: .infinity)
        let rowReach = infinity.replacing(with: FastSqrt.sqrt(-1 / rowCoef), where: rowCoef .< 0)
        let columnReach = infinity.replacing(with: FastSqrt.sqrt(-1 / columnCoef), where: columnCoef .< 0)
        for lane in 0..<8 where mask[lane] {
            let slot = out + visible
            projected[slot] = ProjectedSplat(u: u[lane], v: v[lane], conicA: conicA[lane], conicB: conicB[lane],
                                             conicC: conicC[lane], opacity: oEff[lane], red: 0, green: 0, blue: 0,
                                             powerThreshold: threshold[lane], rowReach: rowReach[lane],
                                             columnReach: columnReach[lane])
            binInfo[slot] = SplatBinInfo(depth: tz[lane], index: UInt32(i + lane),
                                         tileMinX: UInt16(minX[lane]), tileMinY: UInt16(minY[lane]),
                                         tileMaxX: UInt16(maxX[lane]), tileMaxY: UInt16(maxY[lane]))
            visible += 1
            pairs += Int(tiles[lane])
        }
    }

    /// View-dependent colour (section 9) for the `count` visible splats stored from `first`,
    /// eight at a time: dir = normalize(μ − eye) in world coordinates, colour = max(SH + 0.5, 0).
    private func shadeVisible(from first: Int, count: Int, projected: UnsafeMutablePointer<ProjectedSplat>,
                              binInfo: UnsafeMutablePointer<SplatBinInfo>) {
        guard count > 0 else { return }
        typealias V = SIMD8<Float>
        let scene = prepared.scene
        let dcR = scene.columnBase(.dcR), dcG = scene.columnBase(.dcG), dcB = scene.columnBase(.dcB)
        let coefficients = SplatScene.shCoefficientCount(degree: shDegree)
        let shStride = scene.shFloatsPerSplat
        let shBase = UnsafePointer(scene.sh.baseAddress)
        let eye = view.eye
        withUnsafeTemporaryAllocation(of: V.self, capacity: 16) { basis in
            var j = 0
            while j < count {
                let lanes = min(8, count - j)
                var index = SIMD8<Int>()
                for lane in 0..<8 { index[lane] = Int(binInfo[first + j + min(lane, lanes - 1)].index) }
                @inline(__always) func gather(_ p: UnsafePointer<Float>) -> V {
                    V(p[index[0]], p[index[1]], p[index[2]], p[index[3]], p[index[4]], p[index[5]], p[index[6]], p[index[7]])
                }
                let dx = gather(xs) - eye.x, dy = gather(ys) - eye.y, dz = gather(zs) - eye.z
                let length = FastSqrt.sqrt(dx * dx + dy * dy + dz * dz)
                let inv = V(repeating: 0).replacing(with: 1 / length, where: length .> 0)
                let x = dx * inv, y = dy * inv, z = dz * inv
                let red = SphericalHarmonics.c0 * gather(dcR)
                let green = SphericalHarmonics.c0 * gather(dcG)
                let blue = SphericalHarmonics.c0 * gather(dcB)
                let evaluateRest = coefficients > 0 && shBase != nil
                if evaluateRest { Self.fillBasis(basis.baseAddress!, x: x, y: y, z: z, degree: shDegree) }
                let basisLanes = UnsafeRawPointer(basis.baseAddress!).assumingMemoryBound(to: Float.self)
                for lane in 0..<lanes {
                    var colour = SIMD4<Float>(red[lane], green[lane], blue[lane], 0)
                    if evaluateRest, let shBase {
                        // One splat's coefficients are contiguous (R, G, B per coefficient): an
                        // unaligned 4-float load per coefficient, the 4th lane ignored; the last
                        // coefficient is read exactly, as it may end the array.
                        let p = shBase + index[lane] * shStride
                        for k in 0..<(coefficients - 1) {
                            colour.addProduct(basisLanes[k * 8 + lane], UnsafeRawPointer(p + 3 * k).loadUnaligned(as: SIMD4<Float>.self))
                        }
                        let last = 3 * (coefficients - 1)
                        colour.addProduct(basisLanes[(coefficients - 1) * 8 + lane], SIMD4(p[last], p[last + 1], p[last + 2], 0))
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
