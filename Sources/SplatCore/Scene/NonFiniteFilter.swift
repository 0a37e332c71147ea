/// Applies the non-finite rule of `formats.md` 8.4 to a decoded scene: a splat with a NaN
/// anywhere, ±∞ in a position, rotation, DC or SH value, or a log-scale of +∞ is dropped (and
/// counted in a warning), or fails the decode under `strict`. A log-scale of −∞ (zero extent)
/// and alphas of exactly 0 or 1 are kept.
public enum NonFiniteFilter {
    /// Returns the number of splats removed.
    @discardableResult
    public static func apply(to scene: SplatScene, strict: Bool, file: String? = nil) throws(SplatError) -> Int {
        let n = scene.count
        guard n > 0 else { return 0 }
        let chunk = 16384
        let chunks = (n + chunk - 1) / chunk
        // First pass, parallel and vectorised: almost every real scene is clean, so each chunk is
        // proven clean with whole-column SIMD scans and only a dirty chunk is walked splat by splat.
        let firstBad = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks)
        defer { firstBad.deallocate() }
        let cancellation = CancellationToken.current
        let completed = Parallel.forEachChunk(count: n, chunkSize: chunk, cancellation: cancellation) { c, range in
            firstBad[c] = chunkIsClean(scene, range) ? Int.max : (range.first(where: { !isFinite(scene, $0) }) ?? Int.max)
        }
        if !completed { try cancellation?.check("while filtering non-finite splats") }
        guard let first = firstBad.min(), first != Int.max else { return 0 }
        if strict {
            throw SplatError(.nonFinite, "splat \(first) has a non-finite value", file: file, field: "splat \(first)")
        }
        let removed = scene.compact { isFinite(scene, $0) }
        scene.warnings.append("non_finite: dropped \(removed) splat(s) with NaN or infinite values (first index \(first))")
        return removed
    }

    /// True when no value of splats `range` breaks the rule (may be false for splats that are
    /// clean only because of an allowed infinity, which the per-splat walk then accepts). A
    /// decoder that runs this on each chunk while it is still in cache can spare the scene the
    /// filter's own pass over memory (`formats.md` 8.4 is then already proven).
    public static func chunkIsClean(_ s: SplatScene, _ range: Range<Int>) -> Bool {
        // x − x is 0 for finite x and NaN for ±∞ and NaN; NaN poisons the sum.
        func finiteSum(_ p: UnsafeMutablePointer<Float>, _ lo: Int, _ hi: Int) -> Bool {
            var acc = SIMD16<Float>(repeating: 0)
            var i = lo
            while i + 16 <= hi {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Float>.self)
                acc += v - v
                i += 16
            }
            var tail: Float = 0
            while i < hi { tail += p[i] - p[i]; i += 1 }
            return acc.sum() + tail == 0
        }
        let lo = range.lowerBound, hi = range.upperBound
        for c: SplatScene.Column in [.x, .y, .z, .rotW, .rotX, .rotY, .rotZ, .dcR, .dcG, .dcB, .alpha,
                                      .logScaleX, .logScaleY, .logScaleZ] where !finiteSum(s.columnBase(c), lo, hi) {
            return false
        }
        let per = s.shFloatsPerSplat
        return per == 0 || finiteSum(s.sh.baseAddress!, lo * per, hi * per)
    }

    @inline(__always)
    static func isFinite(_ s: SplatScene, _ i: Int) -> Bool {
        @inline(__always) func fin(_ v: Float) -> Bool { v - v == 0 }
        guard fin(s.x[i]), fin(s.y[i]), fin(s.z[i]),
              fin(s.rotW[i]), fin(s.rotX[i]), fin(s.rotY[i]), fin(s.rotZ[i]),
              fin(s.dcR[i]), fin(s.dcG[i]), fin(s.dcB[i]), !s.alpha[i].isNaN else { return false }
        let lx = s.logScaleX[i], ly = s.logScaleY[i], lz = s.logScaleZ[i]
        if lx.isNaN || ly.isNaN || lz.isNaN || lx == .infinity || ly == .infinity || lz == .infinity { return false }
        let per = s.shFloatsPerSplat
        if per > 0 {
            let sh = s.sh
            var acc: Float = 0
            for j in i * per..<(i + 1) * per { acc += sh[j] - sh[j] }
            if acc != 0 || acc.isNaN { return false }
        }
        return true
    }
}
