#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SplatCore
import Synchronization

/// Converts a v4 file's SH codes to Float32 while the SH stream is still inflating, on a core
/// the small streams have left idle.
///
/// The stream inflates into the last quarter of the scene's SH floats (`SPZDequantizer.shInPlace`):
/// code j lies at byte 3·count + j and becomes the float at bytes [4j, 4j + 4). For j below
/// ¾·count those bytes lie wholly below the codes, so converting them never touches a byte zstd
/// still writes or matches against; the rest waits for the stream's end. Before, one core
/// inflated the 150 MB stream while the other idled, and then both converted: the SH stream set
/// the pace and the conversion came on top (SPZ v4 stress decode 1.30–1.44× raw zstd).
///
/// The follower never waits for a stream that is not inflating on another thread at that very
/// moment (it returns instead), so it cannot deadlock with one thread or when it runs first;
/// whatever it leaves is converted after the stream ends. Which thread converts a code never
/// changes its float, so the scene does not depend on timing.
final class SHInflationFollower: @unchecked Sendable {
    /// Codes in the stream.
    let count: Int
    /// Codes the follower may convert while the stream inflates: ⌊¾·count⌋, as the first
    /// round of `shInPlace`.
    let convertibleWhileInflating: Int
    private let region: UnsafeMutableRawPointer
    /// Codes inflated so far (bytes of the stream's output that are final).
    private let inflated = Atomic<Int>(0)
    /// 0 before the stream starts, 1 while it inflates, 2 once it has ended (or failed).
    private let phase = Atomic<Int>(0)
    /// Codes the follower has converted, all from index 0 on (updated as it goes).
    private let done = Atomic<Int>(0)
    /// Codes the follower may convert now: below `convertibleWhileInflating` while the small
    /// streams' packed bytes still lie in the floats just under the codes (`reservedBelowCodes`),
    /// raised to it by `geometryDequantized()`.
    private let ceiling: Atomic<Int>
    /// Smallest run worth converting at once while the stream is still ahead.
    static let step = 1 << 18

    /// `reservedBelowCodes`: bytes just below the codes that hold other packed data until
    /// `geometryDequantized()` (at most 3·count).
    init(region: UnsafeMutableRawPointer, count: Int, reservedBelowCodes: Int = 0) {
        self.region = region
        self.count = count
        convertibleWhileInflating = 3 * count / 4
        // Code j becomes the bytes [4j, 4j + 4): below 3·count − reserved for j < (3·count − reserved) / 4.
        ceiling = Atomic(min(convertibleWhileInflating, (3 * count - reservedBelowCodes) / 4))
    }

    /// The bytes reserved below the codes are free: the follower may convert up to ¾·count.
    func geometryDequantized() {
        ceiling.store(convertibleWhileInflating, ordering: .releasing)
    }

    /// Where the stream inflates to.
    var target: UnsafeMutableRawBufferPointer { UnsafeMutableRawBufferPointer(start: region + 3 * count, count: count) }

    /// Inflates the stream through `inflate`, which reports the count of final leading bytes.
    func inflate(_ inflate: (_ progress: @escaping (Int) -> Void) throws(SplatError) -> Void) throws(SplatError) {
        phase.store(1, ordering: .releasing)
        defer { phase.store(2, ordering: .releasing) }
        try inflate { self.inflated.store($0, ordering: .releasing) }
    }

    /// Converts the codes inflated so far, following the stream until it ends or the follower
    /// has converted all it may; returns at once if the stream is not inflating.
    func follow(cancellation: CancellationToken?) {
        let src = (region + 3 * count).assumingMemoryBound(to: UInt8.self)
        let dst = region.assumingMemoryBound(to: Float.self)
        var done = self.done.load(ordering: .relaxed)
        while done < convertibleWhileInflating {
            let running = phase.load(ordering: .acquiring) == 1
            let ready = min(inflated.load(ordering: .acquiring), ceiling.load(ordering: .acquiring))
            // Once the stream has ended, what is left goes to every core (`shInPlace`).
            if !running || cancellation?.isCancelled == true { break }
            if ready - done >= Self.step {
                let end = min(ready, done + 4 * Self.step)
                SPZDequantizer.convertSH(src + done, count: end - done, into: dst + done)
                done = end
                self.done.store(done, ordering: .releasing)
                continue
            }
            // The stream makes ~2 MB of codes per millisecond; a short pause loses little.
            usleep(50)
        }
    }

    /// Codes converted so far, all from index 0 on; after the parallel work, what `shInPlace`
    /// may skip.
    var converted: Int { done.load(ordering: .acquiring) }
}
