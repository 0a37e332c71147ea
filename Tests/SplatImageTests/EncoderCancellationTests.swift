import Foundation
import Synchronization
import Testing
import SplatCore
@testable import SplatImage

/// Every encoder stops on its cancellation token: before it starts, from another thread while
/// it works, and at a deadline, with the error kind the token's reason calls for and no bytes.
@Suite("Encoder cancellation", .serialized)
struct EncoderCancellationTests {
    /// Incompressible pixels, quick to make even in a debug build (one xorshift step per 8 bytes),
    /// so every encoder is as slow as it gets on them.
    static func noise(width: Int, height: Int, channels: Int) -> ImageBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        pixels.withUnsafeMutableBytes { raw in
            var state: UInt64 = 0x9E37_79B9_7F4A_7C15
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                words[i] = state
            }
        }
        return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// The encoders under test, one closure each, all taking the token.
    static let encoders: [(String, @Sendable (ImageBuffer, CancellationToken) throws(SplatError) -> [UInt8])] = [
        ("png", { image, token throws(SplatError) in try PNGWriter.encode(image, cancellation: token) }),
        ("jpeg", { image, token throws(SplatError) in try JPEGWriter.encode(image, cancellation: token) }),
        ("webp lossless", { image, token throws(SplatError) in try WebPWriter.encode(image, cancellation: token) }),
        ("webp lossy", { image, token throws(SplatError) in try WebPWriter.encode(image, compression: .lossy(quality: 80), cancellation: token) }),
        ("animated webp", { image, token throws(SplatError) in
            try AnimatedWebPWriter.encode(frames: [image, image], cancellation: token) }),
        ("still jpeg", { image, token throws(SplatError) in try StillImageEncoder.encode(image, as: .jpeg, cancellation: token) }),
    ]

    static func outcome(_ body: () throws(SplatError) -> [UInt8]) -> Result<Int, SplatError> {
        do throws(SplatError) { return .success(try body().count) } catch { return .failure(error) }
    }

    @Test func tokenCancelledBeforehandGivesItsKind() {
        let image = PNGWriterTests.renderLike(width: 64, height: 48, channels: 4)
        let reasons: [(CancellationToken.Reason, SplatErrorKind)] = [(.cancelled, .cancelled), (.interrupted, .interrupted), (.deadline, .timeout)]
        for (name, encode) in Self.encoders {
            for (reason, kind) in reasons {
                let token = CancellationToken()
                token.cancel(reason)
                let result = Self.outcome { () throws(SplatError) in try encode(image, token) }
                #expect(result.failure?.kind == kind, "\(name), \(reason)")
            }
            let expired = CancellationToken(seconds: 0)
            #expect(Self.outcome { () throws(SplatError) in try encode(image, expired) }.failure?.kind == .timeout, "\(name), deadline")
            #expect(Self.outcome { () throws(SplatError) in try encode(image, CancellationToken()) }.success ?? 0 > 0, "\(name) uncancelled")
        }
    }

    /// Twice the time one 256 KiB piece (a PNG band, a few JPEG strips) takes with this build:
    /// the most a check can lag when both cores are inside a piece. Debug builds run the SIMD
    /// kernels about a hundred times slower than release, so a fixed bound would not fit both.
    static func pieceAllowance(_ encode: (ImageBuffer, CancellationToken) throws(SplatError) -> [UInt8]) -> Duration {
        let piece = noise(width: 256, height: 256, channels: 4)
        let clock = ContinuousClock()
        let start = clock.now
        _ = try? encode(piece, .none)
        return (clock.now - start) * 2
    }

    /// A large encode cancelled from another thread 20 ms in stops with `cancelled`, within a
    /// loose second (plus two pieces of work); each encoder would take far longer without the
    /// checks inside it.
    @Test(arguments: ["png", "jpeg", "webp lossless", "webp lossy", "animated webp"])
    func cancelFromAnotherThreadStopsALargeEncode(name: String) throws {
        let encode = try #require(Self.encoders.first { $0.0 == name }?.1)
        let side = name == "animated webp" ? 2048 : 4096
        let image = Self.noise(width: side, height: side, channels: 4)
        let allowance = Self.pieceAllowance(encode)
        let token = CancellationToken()
        let clock = ContinuousClock()
        let start = clock.now
        // A thread of its own, as a signal handler or a server connection would be: the encoder's
        // workers occupy Dispatch's pool, which would delay a block queued there.
        Thread {
            Thread.sleep(forTimeInterval: 0.02)
            token.cancel()
        }.start()
        let result = Self.outcome { () throws(SplatError) in try encode(image, token) }
        let elapsed = clock.now - start
        #expect(result.failure?.kind == .cancelled, "\(name): \(result)")
        #expect(result.failure?.message.contains("while") == true)
        #expect(elapsed < .milliseconds(20) + .seconds(1) + allowance, "\(name) took \(elapsed)")
    }

    /// What an encode abandoned at its token goes on doing. libwebp encodes a lossy picture's
    /// alpha plane with no progress hook: cancelled a quarter of the way in, the encode thread
    /// ran on for about two thirds of a whole encode after its caller had returned (4096²: 1.3 s;
    /// the 8192² deadline probe held a core for 8 s). With the planes encoded apart, each under
    /// the hook, it ends at the next hook. Runs the work a detached encode thread runs, against
    /// the time of a whole encode measured just before (so the bound scales with the machine).
    @Test func anAbandonedLossyAlphaEncodeStopsSoon() throws {
        let image = WebPWriterTests.softDisc(side: 4096)
        let config = try WebPEncoderSettings.make(compression: .lossy(quality: 80), effort: 4)
        let clock = ContinuousClock()
        let before = clock.now
        _ = try WebPWriter.encodeLossyWithAlpha(image, config: config, effort: 4, cancellation: .none)
        let whole = clock.now - before

        let token = CancellationToken()
        let cancelledAt = Mutex<ContinuousClock.Instant?>(nil)
        let ended = DispatchSemaphore(value: 0)
        Thread {
            Thread.sleep(forTimeInterval: Double((whole / 4).components.seconds) + Double((whole / 4).components.attoseconds) * 1e-18)
            cancelledAt.withLock { $0 = clock.now }
            token.cancel()
        }.start()
        let result = Self.outcome { () throws(SplatError) in
            try DetachedEncode.run(cancellation: token, point: "while encoding the WebP") { () throws(SplatError) in
                defer { ended.signal() }
                return try WebPWriter.encodeLossyWithAlpha(image, config: config, effort: 4, cancellation: token)
            }
        }
        #expect(result.failure?.kind == .cancelled, "\(result)")
        #expect(ended.wait(timeout: .now() + 60) == .success)
        let ranOn = clock.now - (try #require(cancelledAt.withLock { $0 }))
        #expect(ranOn < whole / 5, "the encode thread ran \(ranOn) past its cancellation; a whole encode takes \(whole)")
    }

    /// The same with a deadline: `timeout`, within the deadline plus a loose second.
    @Test(arguments: ["png", "jpeg", "webp lossless"])
    func deadlineStopsALargeEncode(name: String) throws {
        let encode = try #require(Self.encoders.first { $0.0 == name }?.1)
        let image = Self.noise(width: 4096, height: 4096, channels: 4)
        let allowance = Self.pieceAllowance(encode)
        let clock = ContinuousClock()
        let start = clock.now
        let token = CancellationToken(budget: .milliseconds(300), start: start)
        let result = Self.outcome { () throws(SplatError) in try encode(image, token) }
        let elapsed = clock.now - start
        #expect(result.failure?.kind == .timeout, "\(name): \(result)")
        #expect(elapsed < .milliseconds(300) + .seconds(1) + allowance, "\(name) took \(elapsed)")
    }
}

extension Result {
    var failure: Failure? { if case .failure(let e) = self { e } else { nil } }
    var success: Success? { if case .success(let v) = self { v } else { nil } }
}
