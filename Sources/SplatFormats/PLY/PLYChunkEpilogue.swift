import SplatCore
import Synchronization

/// What every binary row decoder does once a chunk's values are in place: the 2DGS third scale
/// (−∞, it has no source), the opacity sigmoid and quaternion normalization, counted per chunk;
/// then the non-finite check of the chunk while it is still in cache (a later pass over the whole
/// scene read it all back from memory: 8 % of the 843 MB stress decode).
final class PLYChunkEpilogue: @unchecked Sendable {
    let scene: SplatScene
    let tally: QuaternionNormalization.Tally
    let dirtyChunks = Atomic<Int>(0)
    let logScaleZ: UnsafeMutablePointer<Float>
    let alpha: UnsafeMutablePointer<Float>
    let is2DGS: Bool

    init(scene: SplatScene, layout: PLYGaussianLayout, rowsPerChunk: Int) {
        self.scene = scene
        tally = QuaternionNormalization.Tally(chunks: (scene.count + rowsPerChunk - 1) / rowsPerChunk)
        logScaleZ = scene.columnBase(.logScaleZ)
        alpha = scene.columnBase(.alpha)
        is2DGS = layout.is2DGS
    }

    @inline(__always)
    func finish(_ chunk: Int, _ range: Range<Int>) {
        if is2DGS { (logScaleZ + range.lowerBound).update(repeating: -.infinity, count: range.count) }
        PLYDecoder.applySigmoid(alpha, range)
        tally.record(chunk, QuaternionNormalization.normalize(scene, range))
        if !NonFiniteFilter.chunkIsClean(scene, range) { dirtyChunks.add(1, ordering: .relaxed) }
    }

    var allClean: Bool { dirtyChunks.load(ordering: .relaxed) == 0 }
}
