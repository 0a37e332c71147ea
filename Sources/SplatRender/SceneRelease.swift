import SplatCore
import Synchronization

/// Hands a render scene's memory back to the system while its one frame is projected
/// (`Renderer.renderLastFrame`). A single thumbnail of a multi-million-splat scene peaks while the
/// scene and the frame's per-splat tables are both held; once a chunk of splats is projected and
/// shaded nothing reads its columns again, so releasing them as the tables fill keeps the sum
/// near the larger of the two instead of both.
///
/// Chunks finish in any order on any worker, and a column's page may span two chunks, so pages
/// are released per group of `chunksPerGroup` neighbouring chunks, by whichever worker finishes
/// the group's last chunk: only pages wholly inside the group's splats, which no other group
/// reads. The pages straddling group boundaries (two per column per group, < 1 %) stay until
/// the scene is freed.
final class SceneRelease: @unchecked Sendable {
    /// 32 preprocessor chunks: 1 MiB of each Float column.
    static let chunksPerGroup = 32

    private let scene: RenderScene
    private let chunkSize: Int
    private let remaining: Mutex<[Int]>
    private let chunksPerGroup: Int

    init(scene: RenderScene, chunkSize: Int, chunksPerGroup: Int = SceneRelease.chunksPerGroup) {
        self.chunksPerGroup = max(1, chunksPerGroup)
        self.scene = scene
        self.chunkSize = chunkSize
        let chunks = (scene.count + chunkSize - 1) / chunkSize, group = self.chunksPerGroup
        let groups = (chunks + group - 1) / group
        remaining = Mutex((0..<groups).map { g in min(group, chunks - g * group) })
    }

    /// Records that `chunk` is projected and shaded; releases its group once the group is done.
    func finished(chunk: Int) {
        let group = chunk / chunksPerGroup
        let done = remaining.withLock { counts -> Bool in
            counts[group] -= 1
            return counts[group] == 0
        }
        guard done else { return }
        let first = group * chunksPerGroup * chunkSize
        let end = min(scene.count, (group + 1) * chunksPerGroup * chunkSize)
        scene.discardPages(splats: first..<end)
    }
}

extension RenderScene {
    /// Discards the whole pages of every per-splat array the renderer reads that lie inside
    /// splats `range` (they read as zero afterwards).
    func discardPages(splats range: Range<Int>) {
        @inline(__always) func discard(_ base: UnsafeRawPointer?, bytesPerSplat: Int) {
            guard let base, bytesPerSplat > 0 else { return }
            let page = UInt(FileIO.pageSize)
            let start = (UInt(bitPattern: base) + UInt(range.lowerBound * bytesPerSplat) + page - 1) & ~(page - 1)
            let end = (UInt(bitPattern: base) + UInt(range.upperBound * bytesPerSplat)) & ~(page - 1)
            guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
            FileIO.discardPages(pointer, bytes: Int(end - start))
        }
        let c = columns
        for column in [c.x, c.y, c.z, c.logScaleX, c.logScaleY, c.logScaleZ, c.rotW, c.rotX, c.rotY, c.rotZ, c.alpha,
                       c.dcR, c.dcG, c.dcB] {
            discard(column, bytesPerSplat: 4)
        }
        discard(colours.sh, bytesPerSplat: 4 * colours.perSplat)
        discard(colours.codes, bytesPerSplat: colours.codeStride)
        if let prepared {
            for k in 0..<6 { discard(prepared.covariance + k * stride, bytesPerSplat: 4) }
            discard(prepared.opacity, bytesPerSplat: 4)
        }
    }
}
