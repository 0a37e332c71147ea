import SplatCore

/// Per-frame, per-splat work (`rendering.md` 4–7, 9): camera transform, near-plane and opacity
/// culls, EWA projection with the Jacobian clamp, 0.3 px² dilation and the anti-aliasing
/// compensation, conic, INRIA radius and tile rectangle narrowed to the compositor's reaches
/// (the opacity-aware box, tightened), then SH colour for the survivors only. SIMD over
/// blocks of 8 splats, one chunk per task.
///
/// The lateral cull is the tile rectangle itself, computed for the whole block before any SH
/// work: a splat is dropped exactly when its INRIA rectangle holds no tile, so nothing that
/// would touch a tile is lost, and off-screen splats never pay for SH. It is counted visible
/// then, as the reference counts it, even when the narrowing leaves it no tile to bin into.
///
/// Visible splats of chunk c are written compacted, in index order, at `c·chunkSize ..<
/// c·chunkSize + visibleInChunk[c]` of the output tables ("slots"), so no global prefix sum is
/// needed and slot order is splat-index order.
struct Preprocessor {
    /// Splats per task (a multiple of 8; independent of the thread count).
    static let chunkSize = 8192
    static let minAlpha: Float = 1.0 / 255.0
    static let dilation: Float = 0.3
    static let antialiasFloor: Float = 2.5e-5
    static let discriminantFloor: Float = 0.1

    /// Per slot: the compositor's record, the depth (camera z) for the per-tile sort and the
    /// tile rectangle for binning; `indices` (the splat index of each slot) only when asked for.
    struct Output {
        let projected: AlignedBuffer<ProjectedSplat>
        let depth: AlignedBuffer<Float>
        let rects: AlignedBuffer<TileRect>
        let indices: AlignedBuffer<UInt32>?
        let visibleInChunk: [Int]
        let visibleCount: Int
        let pairCount: Int
    }

    let scene: RenderScene
    let view: ViewProjection
    let antialiased: Bool
    let shDegree: Int
    /// Tests only: bin into INRIA's rectangle alone, without the narrowing to the reaches.
    var exhaustive = false
    var release: SceneRelease? // the last frame's: hands the scene's memory back as chunks are done

    init(scene: RenderScene, view: ViewProjection, antialiased: Bool, shDegree: Int) {
        self.scene = scene
        self.view = view
        self.antialiased = antialiased
        self.shDegree = shDegree
    }

    /// A cancelled token stops it between chunks (chunks not run count no visible splats); the
    /// renderer then throws instead of using the output. `recordIndices` fills `Output.indices`
    /// (tests).
    func run(threads: Int?, scratch: FrameScratch = FrameScratch(), cancellation: CancellationToken? = nil,
             recordIndices: Bool = false) -> Output {
        let n = scene.count
        let chunks = (n + Self.chunkSize - 1) / Self.chunkSize
        FrameScratch.ensure(&scratch.projected, n)
        FrameScratch.ensure(&scratch.depth, n)
        FrameScratch.ensure(&scratch.rects, n)
        let projected = scratch.projected, depth = scratch.depth, rects = scratch.rects
        let indices = recordIndices ? AlignedBuffer<UInt32>(count: max(n, 1)) : nil
        let counts = AlignedBuffer<Int>(count: max(chunks, 1), zeroed: true), pairs = AlignedBuffer<Int>(count: max(chunks, 1), zeroed: true)
        Parallel.forEachChunk(count: n, chunkSize: Self.chunkSize, threads: threads, cancellation: cancellation) { chunk, range in
            // The splat index of each visible slot of this chunk, for shading (32 KiB of stack).
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: Self.chunkSize) { local in
              withUnsafeTemporaryAllocation(of: SIMD8<Float>.self, capacity: Self.laneRows) { lanes in
                let out = Tables(projected: projected.base, depth: depth.base, rects: rects.base, local: local.baseAddress!,
                                 lanes: lanes.baseAddress!)
                var visible = 0
                var pairCount = 0
                if let prepared = scene.prepared {
                    let source = PreparedCovariance(covariance: prepared.covariance, opacity: prepared.opacity, stride: scene.stride)
                    projectChunk(source, range: range, visible: &visible, pairs: &pairCount, out: out)
                } else {
                    projectChunk(FrameCovariance(columns: scene.columns), range: range, visible: &visible, pairs: &pairCount, out: out)
                }
                shadeVisible(from: range.lowerBound, count: visible, indices: local.baseAddress!, projected: projected.base)
                if let indices { (indices.base + range.lowerBound).update(from: local.baseAddress!, count: visible) }
                (counts[chunk], pairs[chunk]) = (visible, pairCount)
                release?.finished(chunk: chunk)
              }
            }
        }
        var visibleInChunk = [Int](repeating: 0, count: chunks)
        var totalVisible = 0, totalPairs = 0
        for c in 0..<chunks {
            visibleInChunk[c] = counts[c]
            totalVisible += counts[c]
            totalPairs += pairs[c]
        }
        return Output(projected: projected, depth: depth, rects: rects, indices: indices, visibleInChunk: visibleInChunk,
                      visibleCount: totalVisible, pairCount: totalPairs)
    }

    /// Where `projectBlock` writes: the output tables by slot, and the chunk's splat indices.
    private struct Tables {
        let projected: UnsafeMutablePointer<ProjectedSplat>
        let depth: UnsafeMutablePointer<Float>
        let rects: UnsafeMutablePointer<TileRect>
        let local: UnsafeMutablePointer<UInt32>
        /// A block's per-lane results, `laneRows` vectors, read back lane by lane for the visible
        /// ones: subscripting a SIMD vector with a variable lane spills the whole vector each time.
        let lanes: UnsafeMutablePointer<SIMD8<Float>>
    }

    static let laneRows = 13

    /// One chunk's blocks, specialised for where Σ comes from.
    private func projectChunk<Source: CovarianceSource>(_ source: Source, range: Range<Int>, visible: inout Int, pairs: inout Int,
                                                        out: Tables) {
        var i = range.lowerBound
        while i < range.upperBound {
            projectBlock(source, at: i, end: range.upperBound, first: range.lowerBound, visible: &visible, pairs: &pairs, out: out)
            i += 8
        }
    }

    /// Projects splats i..<min(i + 8, end) and appends the visible ones at slot `first + visible`
    /// (their splat indices at `out.local[visible]`).
    @inline(__always)
    private func projectBlock<Source: CovarianceSource>(_ source: Source, at i: Int, end: Int, first: Int, visible: inout Int,
                                                        pairs: inout Int, out: Tables) {
        typealias V = SIMD8<Float>
        typealias Mask = SIMDMask<SIMD8<Int32>>
        @inline(__always) func load(_ p: UnsafePointer<Float>) -> V {
            UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
        }
        @inline(__always) func finite(_ v: V) -> Mask { (v - v) .== 0 }
        let o = source.opacity(at: i)
        let px = load(scene.x), py = load(scene.y), pz = load(scene.z)
        let r0 = view.r0, r1 = view.r1, r2 = view.r2, t = view.translation
        let tz = r2.x * px + r2.y * py + r2.z * pz + t.z
        var mask = (tz .> view.near) .& (o .>= Self.minAlpha)
        let remaining = end - i
        if remaining < 8 { mask = mask .& (SIMD8<Int32>(0, 1, 2, 3, 4, 5, 6, 7) .< Int32(remaining)) }
        guard mask.anyLane else { return }
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
        let (s00, s01, s02, s11, s12, s22, usable) = source.covariance(at: i)
        mask = mask .& usable
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
        guard mask.anyLane else { return }
        let invDet = 1 / detPlus
        let conicA = cPlus * invDet, conicB = -covB * invDet, conicC = aPlus * invDet

        // INRIA radius: 3σ of the larger eigenvalue, with the 0.1 floor on the discriminant (6.2).
        let mid = 0.5 * (aPlus + cPlus)
        let disc = (mid * mid - detPlus).atLeast(Self.discriminantFloor)
        let radius = (3 * FastSqrt.sqrt(mid + FastSqrt.sqrt(disc))).rounded(.up)
        let u = view.fx * tx * invZ + view.cx
        let v = view.fy * ty * invZ + view.cy
        mask = mask .& finite(u) .& finite(v) .& finite(radius)
        guard mask.anyLane else { return }

        let gx = V(repeating: Float(view.tilesX)), gy = V(repeating: Float(view.tilesY))
        let zero = V(repeating: 0)
        // INRIA rectangle in its shifted pixel coordinates (u − 0.5, v − 0.5), truncated (7).
        let pu = u - 0.5, pv = v - 0.5
        var minX = ((pu - radius) * 0.0625).atLeast(zero).atMost(gx).rounded(.towardZero)
        var maxX = ((pu + radius + 15) * 0.0625).atLeast(zero).atMost(gx).rounded(.towardZero)
        var minY = ((pv - radius) * 0.0625).atLeast(zero).atMost(gy).rounded(.towardZero)
        var maxY = ((pv + radius + 15) * 0.0625).atLeast(zero).atMost(gy).rounded(.towardZero)

        var tiles = (maxX - minX).atLeast(zero).atMost(gx) * (maxY - minY).atLeast(zero).atMost(gy)
        mask = mask .& (tiles .> 0)
        guard mask.anyLane else { return }

        // The opacity-aware box (6.3) is the narrowing below: α ≥ 1/255 only where the exponent
        // reaches −ln(255·o_eff), and the reaches bound exactly where it can.
        let logOpacity = FastLog.log(255 * oEff).atLeast(0)
        let threshold = -logOpacity - 1e-3
        let rowCoef = -0.5 * (conicC - conicB * conicB / conicA)
        let columnCoef = -0.5 * (conicA - conicB * conicB / conicC)
        let infinity = V(repeating: .infinity)
        let rowUnit = infinity.replacing(with: FastSqrt.sqrt(-1 / rowCoef), where: rowCoef .< 0)
        let columnUnit = infinity.replacing(with: FastSqrt.sqrt(-1 / columnCoef), where: columnCoef .< 0)
        let (rowReach, columnReach) = Self.reaches(u: u, v: v, conicA: conicA, conicB: conicB, conicC: conicC,
                                                   rect: (minX, minY, maxX, maxY), threshold: threshold,
                                                   rowUnit: rowUnit, columnUnit: columnUnit)
        if !exhaustive {
            (minX, minY, maxX, maxY) = Self.reachedTiles(u: u, v: v, rowReach: rowReach, columnReach: columnReach,
                                                         rect: (minX, minY, maxX, maxY))
            tiles = (maxX - minX) * (maxY - minY)
        }
        // Small non-negative integers (tile coordinates ≤ 1024, tile counts ≤ 2²⁰) as Int32 lanes.
        @inline(__always) func integers(_ x: V) -> SIMD8<Int32> { unsafeBitCast(x + 12_582_912, to: SIMD8<Int32>.self) &- 0x4B40_0000 }
        let lanes = out.lanes
        lanes[0] = u; lanes[1] = v; lanes[2] = conicA; lanes[3] = conicB; lanes[4] = conicC; lanes[5] = oEff
        lanes[6] = threshold; lanes[7] = rowReach; lanes[8] = columnReach; lanes[9] = tz
        lanes[10] = unsafeBitCast(integers(minX) | integers(minY) &<< 16, to: V.self)
        lanes[11] = unsafeBitCast(integers(maxX) | integers(maxY) &<< 16, to: V.self)
        lanes[12] = unsafeBitCast(integers(tiles), to: V.self)
        let lane = UnsafeRawPointer(lanes).assumingMemoryBound(to: Float.self)
        let word = UnsafeRawPointer(lanes).assumingMemoryBound(to: UInt32.self)
        var bits = Int((unsafeBitCast(mask, to: SIMD8<Int32>.self) & SIMD8(1, 2, 4, 8, 16, 32, 64, 128)).wrappedSum())
        while bits != 0 {
            let k = bits.trailingZeroBitCount
            bits &= bits &- 1
            let slot = first &+ visible
            out.projected[slot] = ProjectedSplat(u: lane[k], v: lane[8 &+ k], conicA: lane[16 &+ k], conicB: lane[24 &+ k],
                                                 conicC: lane[32 &+ k], opacity: lane[40 &+ k], red: 0, green: 0, blue: 0,
                                                 powerThreshold: lane[48 &+ k], rowReach: lane[56 &+ k],
                                                 columnReach: lane[64 &+ k])
            out.depth[slot] = lane[72 &+ k]
            let low = word[80 &+ k], high = word[88 &+ k]
            out.rects[slot] = TileRect(UInt16(truncatingIfNeeded: low), UInt16(truncatingIfNeeded: low >> 16),
                                       UInt16(truncatingIfNeeded: high), UInt16(truncatingIfNeeded: high >> 16))
            out.local[visible] = UInt32(truncatingIfNeeded: i &+ k)
            visible &+= 1
            pairs &+= Int(word[96 &+ k])
        }
    }
}

/// Where a block's Σ and culling opacity come from: a protocol only so the projection loop is
/// specialised for each form, never called through a witness table.
protocol CovarianceSource {
    /// The culling opacity of splats i..<i + 8 (0 for an unusable splat where the form knows).
    func opacity(at i: Int) -> SIMD8<Float>
    /// Σ (xx, xy, xz, yy, yz, zz) of splats i..<i + 8 and the lanes that are usable.
    func covariance(at i: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>,
                                   SIMDMask<SIMD8<Int32>>)
}

/// The prepared columns (`ScenePreparation.prepared`): unusable splats already have opacity 0.
struct PreparedCovariance: CovarianceSource {
    let covariance: UnsafePointer<Float>
    let opacity: UnsafePointer<Float>
    let stride: Int

    @inline(__always) func opacity(at i: Int) -> SIMD8<Float> {
        UnsafeRawPointer(opacity + i).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    func covariance(at i: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>,
                                   SIMDMask<SIMD8<Int32>>) {
        @inline(__always) func load(_ k: Int) -> SIMD8<Float> {
            UnsafeRawPointer(covariance + (k &* stride &+ i)).loadUnaligned(as: SIMD8<Float>.self)
        }
        return (load(0), load(1), load(2), load(3), load(4), load(5), SIMDMask(repeating: true))
    }
}

/// Σ recomputed in the frame from the scene's columns (`ScenePreparation.perFrame`), by the same
/// function that prepares it; the raw alpha culls, and the usable mask then removes what the
/// prepared form would have given opacity 0.
struct FrameCovariance: CovarianceSource {
    let columns: SplatPreparation.Columns

    @inline(__always) func opacity(at i: Int) -> SIMD8<Float> {
        UnsafeRawPointer(columns.alpha + i).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    func covariance(at i: Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>,
                                   SIMDMask<SIMD8<Int32>>) {
        let c = SplatPreparation.covarianceBlock(columns, at: i)
        return (c.xx, c.xy, c.xz, c.yy, c.yz, c.zz, c.ok)
    }
}
