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
    ///
    /// With a `cancellation` token, workers stop taking chunks once it is cancelled and the
    /// function returns false: some chunks did not run, so the caller must not use the results
    /// (it checks the token and throws). Tokens are checked once per chunk, never per element.
    @discardableResult
    public static func forEachChunk(count: Int, chunkSize: Int, threads: Int? = nil,
                                    cancellation: CancellationToken? = nil,
                                    _ body: (_ chunk: Int, _ range: Range<Int>) -> Void) -> Bool {
        guard count > 0 else { return true }
        let size = max(1, chunkSize)
        let chunks = (count + size - 1) / size
        return forEach(iterations: chunks, threads: threads, cancellation: cancellation) { c in
            let start = c * size
            body(c, start..<min(count, start + size))
        }
    }

    /// Runs `body(i)` for `i` in `0..<iterations`, handing indices to workers in increasing
    /// order through an atomic counter (so callers may order work by expected cost). Returns
    /// false when `cancellation` stopped it before every index ran (see `forEachChunk`).
    @discardableResult
    public static func forEach(iterations: Int, threads: Int? = nil, cancellation: CancellationToken? = nil,
                               _ body: (Int) -> Void) -> Bool {
        forEachOnWorkers(iterations: iterations, threads: threads, cancellation: cancellation) { _, i in body(i) }
    }

    /// How many workers `forEach` runs for `iterations` indices with `threads`: the size of a
    /// per-worker scratch table.
    public static func workerCount(iterations: Int, threads: Int? = nil) -> Int {
        min(max(1, iterations), max(1, threads ?? processorCount))
    }

    /// `forEach` that also tells `body` which worker (`0..<workerCount`) runs the index, so each
    /// worker can reuse its own scratch buffer. Which worker gets which index depends on timing:
    /// scratch must never carry results from one index to the next.
    @discardableResult
    public static func forEachOnWorkers(iterations: Int, threads: Int? = nil, cancellation: CancellationToken? = nil,
                                        _ body: (_ worker: Int, _ index: Int) -> Void) -> Bool {
        guard iterations > 0 else { return true }
        let workers = workerCount(iterations: iterations, threads: threads)
        if workers == 1 {
            for i in 0..<iterations {
                if let cancellation, cancellation.isCancelled { return false }
                body(0, i)
            }
            return true
        }
        let next = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        withoutActuallyEscaping(body) { body in
            let box = UnsafeSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                while true {
                    if let cancellation, cancellation.isCancelled {
                        stopped.store(true, ordering: .relaxed)
                        break
                    }
                    let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if i >= iterations { break }
                    box.value(worker, i)
                }
            }
        }
        return !stopped.load(ordering: .relaxed)
    }
}

extension Parallel {
    /// Runs `body` for each index concurrently and returns the results in index order, or the
    /// error of the lowest failing index (so the reported error does not depend on timing).
    /// A `cancellation` token that stops the work ends it with the token's error.
    public static func map<T>(_ count: Int, threads: Int? = nil, cancellation: CancellationToken? = nil,
                              _ body: (Int) throws(SplatError) -> T) throws(SplatError) -> [T] {
        let slots = UnsafeMutableBufferPointer<Result<T, SplatError>?>.allocate(capacity: max(1, count))
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        let completed = forEach(iterations: count, threads: threads, cancellation: cancellation) { i in
            do throws(SplatError) { slots[i] = .success(try body(i)) } catch { slots[i] = .failure(error) }
        }
        if !completed, let cancellation { try cancellation.check("while work was split over cores") }
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

extension Parallel {
    /// `forEachChunk` for bodies that can fail, with the worker index (see `forEachOnWorkers`).
    /// Throws the error of the lowest failing chunk, so the reported error does not depend on
    /// timing; chunks after a failure still run (they are independent) but their results must
    /// not be used. A `cancellation` token that stops the work ends it with the token's error.
    public static func forEachChunkOnWorkers(count: Int, chunkSize: Int, threads: Int? = nil,
                                             cancellation: CancellationToken? = nil,
                                             _ body: (_ worker: Int, _ chunk: Int, _ range: Range<Int>) throws(SplatError) -> Void) throws(SplatError) {
        guard count > 0 else { return }
        let size = max(1, chunkSize)
        let chunks = (count + size - 1) / size
        let firstFailure = Mutex<(chunk: Int, error: SplatError)?>(nil)
        let completed = forEachOnWorkers(iterations: chunks, threads: threads, cancellation: cancellation) { worker, c in
            let start = c * size
            do throws(SplatError) {
                try body(worker, c, start..<min(count, start + size))
            } catch {
                firstFailure.withLock { first in
                    if first == nil || c < first!.chunk { first = (c, error) }
                }
            }
        }
        if !completed, let cancellation { try cancellation.check("while work was split over cores") }
        if let failure = firstFailure.withLock({ $0 }) { throw failure.error }
    }
}
