import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// The splats a glTF writer keeps (`formats-gltf.md` 15.1 "Values"): glTF forbids NaN and ±∞
/// in float data, so a splat is dropped when any value it would write is not finite — position,
/// quaternion, linear scale `exp(logScale)` (−∞ gives 0, which is allowed; overflow is not),
/// opacity, DC and the SH bands written. Also gathers the exact Float32 bounds of the kept
/// positions (POSITION's `min`/`max`) and where each chunk's kept splats start in the output.
struct GLTFSplatSelection {
    static let chunkSize = 16384

    /// Kept splats of each chunk, as scene indices.
    let kept: [[Int32]]
    /// Output index of each chunk's first kept splat.
    let starts: [Int]
    let count: Int
    let minimum: SIMD3<Float>
    let maximum: SIMD3<Float>

    var dropped: Int { droppedCount }
    private let droppedCount: Int

    init(_ scene: SplatScene, degree: Int, threads: Int?) {
        let n = scene.count
        let floats = 3 * SplatScene.shCoefficientCount(degree: degree)
        let per = scene.shFloatsPerSplat
        let chunks = (n + Self.chunkSize - 1) / Self.chunkSize
        // The body cannot fail; `map` is the parallel loop that returns results in chunk order.
        typealias Chunk = (indices: [Int32], lo: SIMD3<Float>, hi: SIMD3<Float>)
        let results: [Chunk] = (try? Parallel.map(chunks, threads: threads) { c -> Chunk in
            let range = (c * Self.chunkSize)..<min(n, (c + 1) * Self.chunkSize)
            var indices: [Int32] = []
            indices.reserveCapacity(range.count)
            var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
            let sh = scene.sh.baseAddress
            for i in range {
                let p = scene.position(i), q = scene.rotation(i), s = scene.logScale(i), dc = scene.dc(i)
                let scale = SIMD3(expf(s.x), expf(s.y), expf(s.z))
                // x − x is 0 exactly when x is finite.
                var check = (p - p).sum() + (q - q).sum() + (scale - scale).sum() + (dc - dc).sum()
                if let sh { for j in 0..<floats { check += sh[i * per + j] - sh[i * per + j] } }
                guard check == 0, !scene.alpha[i].isNaN else { continue }
                indices.append(Int32(i))
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
            }
            return (indices, lo, hi)
        }) ?? []
        var starts: [Int] = []
        var total = 0
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for r in results {
            starts.append(total)
            total += r.0.count
            lo = pointwiseMin(lo, r.1)
            hi = pointwiseMax(hi, r.2)
        }
        kept = results.map(\.0)
        self.starts = starts
        count = total
        minimum = lo
        maximum = hi
        droppedCount = n - total
    }
}
