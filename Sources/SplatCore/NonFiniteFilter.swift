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
        let chunk = 65536
        let chunks = (n + chunk - 1) / chunk
        // First pass, parallel: the first bad index of each chunk (Int.max when clean).
        let firstBad = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks)
        defer { firstBad.deallocate() }
        Parallel.forEachChunk(count: n, chunkSize: chunk) { c, range in
            firstBad[c] = range.first(where: { !isFinite(scene, $0) }) ?? Int.max
        }
        guard let first = firstBad.min(), first != Int.max else { return 0 }
        if strict {
            throw SplatError(.nonFinite, "splat \(first) has a non-finite value", file: file, field: "splat \(first)")
        }
        let removed = scene.compact { isFinite(scene, $0) }
        scene.warnings.append("non_finite: dropped \(removed) splat(s) with NaN or infinite values (first index \(first))")
        return removed
    }

    @inline(__always)
    static func isFinite(_ s: SplatScene, _ i: Int) -> Bool {
        // x − x is 0 for finite x and NaN for ±∞ and NaN.
        let fin: (Float) -> Bool = { $0 - $0 == 0 }
        guard fin(s.x[i]), fin(s.y[i]), fin(s.z[i]),
              fin(s.rotW[i]), fin(s.rotX[i]), fin(s.rotY[i]), fin(s.rotZ[i]),
              fin(s.dcR[i]), fin(s.dcG[i]), fin(s.dcB[i]), !s.alpha[i].isNaN else { return false }
        for v in [s.logScaleX[i], s.logScaleY[i], s.logScaleZ[i]] where v.isNaN || v == .infinity { return false }
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
