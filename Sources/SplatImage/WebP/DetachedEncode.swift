import Dispatch
import Foundation
import SplatCore
import Synchronization

/// Runs an encode that can only be stopped coarsely on a thread of its own, so the caller can
/// return as soon as its cancellation token fires.
///
/// libwebp's lossless encoder calls its progress hook only between passes — measured 150 ms
/// apart on a 4096² image and up to 850 ms in its last pass, growing with the image — so a
/// hook alone cannot meet a hard deadline. The caller waits in steps of `pollInterval` and, once
/// the token fires, throws its error at once; the encode thread sees the same token at its next
/// hook, stops, frees what it holds and is gone. Nothing it produces after that is used.
enum DetachedEncode {
    static let pollInterval = DispatchTimeInterval.milliseconds(5)

    /// `work()`'s result, or the token's error as soon as it fires. `work` must own everything
    /// it touches (it may outlive this call) and should check `cancellation` itself.
    static func run(cancellation: CancellationToken, point: String,
                    _ work: @escaping @Sendable () throws(SplatError) -> [UInt8]) throws(SplatError) -> [UInt8] {
        // Without a token that can fire there is nothing to wait for.
        guard cancellation !== CancellationToken.none else { return try work() }
        try cancellation.check(point)
        let outcome = Outcome()
        // A thread of its own, not a Dispatch queue: the parallel loops of other jobs may hold
        // every Dispatch worker, which would delay the start (measured: by seconds).
        let thread = Thread {
            let result: Result<[UInt8], SplatError>
            do throws(SplatError) { result = .success(try work()) } catch { result = .failure(error) }
            outcome.finish(result)
        }
        thread.stackSize = 8 << 20
        thread.start()
        while true {
            if let result = outcome.wait(for: pollInterval) { return try result.get() }
            try cancellation.check(point)
        }
    }

    /// The result slot shared by the caller and the encode thread.
    private final class Outcome: Sendable {
        private let result = Mutex<Result<[UInt8], SplatError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func finish(_ value: Result<[UInt8], SplatError>) {
            result.withLock { $0 = value }
            done.signal()
        }

        /// The result once the encode has finished, or nil after `interval` without it.
        func wait(for interval: DispatchTimeInterval) -> Result<[UInt8], SplatError>? {
            guard done.wait(timeout: .now() + interval) == .success else { return nil }
            return result.withLock { $0 }
        }
    }
}
