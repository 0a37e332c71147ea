import Dispatch
import Foundation
import Synchronization

/// The one parallel-for used by every hot loop. Work is cut into chunks whose boundaries depend
/// only on the problem size and the chunk size, never on the thread count, so results are the
/// same with 1 or N threads. Workers pull chunk indices from an atomic counter.
public enum Parallel {
    /// Cores available to this process.
    public static var processorCount: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    /// Runs `body(chunkIndex, range)` for each chunk of `0..<count` of `chunkSize` elements.
    /// `threads` nil means all cores; 1 runs inline on the caller's thread.
    public static func forEachChunk(count: Int, chunkSize: Int, threads: Int? = nil,
                                    _ body: (_ chunk: Int, _ range: Range<Int>) -> Void) {
        guard count > 0 else { return }
        let size = max(1, chunkSize)
        let chunks = (count + size - 1) / size
        forEach(iterations: chunks, threads: threads) { c in
            let start = c * size
            body(c, start..<min(count, start + size))
        }
    }

    /// Runs `body(i)` for `i` in `0..<iterations`, handing indices to workers in increasing
    /// order through an atomic counter (so callers may order work by expected cost).
    public static func forEach(iterations: Int, threads: Int? = nil, _ body: (Int) -> Void) {
        guard iterations > 0 else { return }
        let workers = min(iterations, max(1, threads ?? processorCount))
        if workers == 1 {
            for i in 0..<iterations { body(i) }
            return
        }
        let next = Atomic<Int>(0)
        withoutActuallyEscaping(body) { body in
            let box = UnsafeSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if i >= iterations { break }
                    box.value(i)
                }
            }
        }
    }
}

extension Parallel {
    /// Runs `body` for each index concurrently and returns the results in index order, or the
    /// error of the lowest failing index (so the reported error does not depend on timing).
    public static func map<T>(_ count: Int, threads: Int? = nil,
                              _ body: (Int) throws(SplatError) -> T) throws(SplatError) -> [T] {
        let slots = UnsafeMutableBufferPointer<Result<T, SplatError>?>.allocate(capacity: max(1, count))
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        forEach(iterations: count, threads: threads) { i in
            do throws(SplatError) { slots[i] = .success(try body(i)) } catch { slots[i] = .failure(error) }
        }
        var out: [T] = []
        out.reserveCapacity(count)
        for slot in slots.prefix(count) {
            switch slot {
            case .success(let v): out.append(v)
            case .failure(let e): throw e
            case nil: preconditionFailure("Parallel.forEach ran every index")
            }
        }
        return out
    }
}

/// Carries a non-Sendable value into `concurrentPerform`, whose workers only ever touch
/// disjoint data through it. Internal to the parallel-for; not a general escape hatch.
struct UnsafeSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
