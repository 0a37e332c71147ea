import SplatCore
import Synchronization

// The v4 container: one zstd stream per attribute, inflated concurrently.
extension SPZDecoder {
    static func decodeStreams(_ source: SPZStreamSource, header: SPZHeader, keptDegree: Int, storage: SHStorage,
                              file: String?, limits: DecodeLimits,
                              geometryReady: ((SplatScene) -> Void)?) throws(SplatError) -> SplatScene {
        let (scene, codes) = makeScene(header, keptDegree: keptDegree, storage: storage)
        describe(scene, header)
        // With every SH band dropped the SH stream is not inflated at all.
        let streams = header.streams.filter { $0.attribute != .sh || keptDegree > 0 }
        // The SH stream (69 % of a degree-3 file) sets the pace. When every band is kept it is
        // inflated into the last quarter of the scene's own SH floats and converted in place,
        // partly while it still inflates (`SHInflationFollower`), the rest afterwards on every
        // core (`SPZDequantizer.shInPlace`), so it needs no buffer of its own; when bands are
        // dropped it goes through a separate buffer, dequantized once it is whole.
        // Kept as codes, the stream is inflated straight into them and that is all.
        let shStream = streams.first { $0.attribute == .sh }
        let shInPlace = keptDegree == header.shDegree && codes == nil
        let shRegion = UnsafeMutableRawPointer(scene.sh.baseAddress!)
        let shBuffer = try shStream.flatMap { (s) throws(SplatError) in
            shInPlace || codes != nil ? nil : try PageBuffer(capacity: s.uncompressedSize, file: file)
        }
        let shTarget = shStream.map { s in
            UnsafeMutableRawBufferPointer(start: codes.map { UnsafeMutableRawPointer($0.codes) } ?? shBuffer?.base ?? shRegion + 3 * s.uncompressedSize,
                                          count: s.uncompressedSize)
        }
        // Converted in place, the small streams inflate into the SH floats just below the packed
        // codes (free until the conversion reaches them) instead of fresh pages of their own:
        // fresh pages cost the kernel's zeroing, which was 55 % of the stress decode's CPU time
        // (perf: clear_page_erms), and 70 MB of them were these streams'. Each lands at a 64-byte
        // boundary; the follower stays below them until they are dequantized.
        let inRegion: [Int: Int] = {
            guard shInPlace, let shStream else { return [:] }
            var offsets: [Int: Int] = [:], total = 0
            for (index, s) in streams.enumerated() where s.attribute != .sh {
                offsets[index] = total
                total += (s.uncompressedSize + 63) & ~63
            }
            let floor = (3 * shStream.uncompressedSize - total) & ~63
            guard floor >= 0 else { return [:] }
            return offsets.mapValues { floor + $0 }
        }()
        let reserved = inRegion.values.min().map { 3 * (shStream?.uncompressedSize ?? 0) - $0 } ?? 0
        let follower = shStream.flatMap { s in
            shInPlace ? SHInflationFollower(region: shRegion, count: s.uncompressedSize, reservedBelowCodes: reserved) : nil
        }
        let followerTasks = follower == nil ? 0 : 1
        // Largest stream first: workers take tasks in order, so the long SH stream starts at once.
        let order = streams.indices.sorted { streams[$0].uncompressedSize > streams[$1].uncompressedSize }
        let failures = UnsafeMutableBufferPointer<SplatError?>.allocate(capacity: max(1, streams.count))
        failures.initialize(repeating: nil)
        // The slots hold errors (with strings): deinitialize them, or each failed decode leaks.
        defer { failures.deinitialize().deallocate() }

        // While one core inflates the long SH stream, the others, once the small streams are
        // done, map the pages of the decoded SH that the kernel would otherwise fault in one by
        // one during dequantization — the part the packed bytes do not occupy, so the resident
        // total never passes the final scene plus the file.
        let prefault = codes != nil ? [] : shStream.map { prefaultPieces(shRegion, decodedBytes: 4 * scene.sh.count,
                                                                         packedBytes: $0.uncompressedSize + reserved) } ?? []
        let cancellation = CancellationToken.current
        // Whoever finishes the last geometry stream tells the caller; the SH stream, largest and
        // taken first, is then usually still inflating on another core.
        let geometryStreams = streams.count { $0.attribute != .sh }
        let geometryDone = Atomic<Int>(0)
        Parallel.forEach(iterations: order.count + followerTasks + prefault.count, cancellation: cancellation) { task in
            guard task < order.count else {
                if task == order.count, let follower {
                    follower.follow(cancellation: cancellation)
                    return
                }
                let piece = prefault[task - order.count - followerTasks]
                PageBuffer.populate(piece.start, byteCount: piece.count)
                return
            }
            let index = order[task]
            let stream = streams[index]
            do throws(SplatError) {
                if stream.attribute == .sh, let follower {
                    try follower.inflate { (progress) throws(SplatError) in
                        try source.inflate(stream, into: follower.target, file: file, limits: limits,
                                           cancellation: cancellation, progress: progress)
                    }
                } else if stream.attribute == .sh, let shTarget {
                    try source.inflate(stream, into: shTarget, file: file, limits: limits, cancellation: cancellation)
                } else {
                    let packed = try inRegion[index] == nil ? PageBuffer.forExactSize(stream.uncompressedSize, file: file) : nil
                    let exact = UnsafeMutableRawBufferPointer(start: packed?.base ?? shRegion + inRegion[index]!,
                                                              count: stream.uncompressedSize)
                    try source.inflate(stream, into: exact, file: file, limits: limits, cancellation: cancellation)
                    dequantize(stream.attribute, UnsafeRawBufferPointer(exact), range: 0..<header.count, header: header, scene: scene)
                    if geometryDone.add(1, ordering: .acquiringAndReleasing).newValue == geometryStreams {
                        follower?.geometryDequantized()
                        geometryReady?(scene)
                    }
                }
            } catch {
                failures[index] = error
            }
        }
        try cancellation?.check("while inflating the SPZ streams")
        if let first = failures.lazy.compactMap({ $0 }).first { throw first }

        if let shStream, shInPlace {
            SPZDequantizer.shInPlace(shRegion, count: shStream.uncompressedSize, converted: follower?.converted ?? 0,
                                     cancellation: cancellation)
        } else if let shBuffer {
            // Each chunk hands back the packed pages only it read, so the packed SH shrinks while
            // the decoded SH grows and the two are never both resident in full.
            let stride = header.stride(.sh)
            Parallel.forEachChunk(count: header.count, chunkSize: splatsPerChunk, cancellation: cancellation) { _, range in
                let start = range.lowerBound * stride, end = range.upperBound * stride
                dequantize(.sh, UnsafeRawBufferPointer(start: shBuffer.base + start, count: end - start), range: range,
                           header: header, scene: scene)
                shBuffer.release(start..<end)
            }
        }
        try cancellation?.check("while dequantizing SH")
        return scene
    }
}

/// Where a v4 file's compressed streams are read from: the file's bytes in memory, or the file
/// itself, a slice at a time (`SPZDecoder.decode(file:)`).
enum SPZStreamSource {
    case memory(UnsafeRawBufferPointer)
    case file(RegularFile)

    /// Inflates `stream` into `dst`, which it must fill exactly (`ZstdCodec.decompress`).
    func inflate(_ stream: SPZHeader.Stream, into dst: UnsafeMutableRawBufferPointer, file: String?, limits: DecodeLimits,
                 cancellation: CancellationToken?, progress: ((Int) -> Void)? = nil) throws(SplatError) {
        switch self {
        case .memory(let bytes):
            let source = UnsafeRawBufferPointer(rebasing: bytes[stream.compressedOffset..<stream.compressedOffset + stream.compressedSize])
            try ZstdCodec.decompress(source, into: dst, stream: stream.attribute.name, file: file, limits: limits,
                                     cancellation: cancellation, progress: progress)
        case .file(let regular):
            try ZstdCodec.decompress(from: regular, offset: stream.compressedOffset, count: stream.compressedSize, into: dst,
                                     stream: stream.attribute.name, cancellation: cancellation, progress: progress)
        }
    }
}
