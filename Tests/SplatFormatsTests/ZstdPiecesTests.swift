import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// Under a job's token `ZstdCodec.decompress` feeds its input in pieces and checks the token
/// between them (one call for the 150 MB SH stream of the stress scene ran 130–300 ms past a
/// deadline). The pieces must give the one-shot call's bytes and its errors.
@Suite struct ZstdPiecesTests {
    /// 6 MB that zstd compresses to a few pieces of input (2 random bits a byte).
    static let data: [UInt8] = {
        var random = SplitMix64(seed: 7)
        return (0..<6_000_000).map { i in UInt8(truncatingIfNeeded: i / 7 &+ Int(random.next() & 3)) }
    }()

    static func inflate(_ frames: [UInt8], size: Int, token: CancellationToken?) throws(SplatError) -> [UInt8] {
        var out = [UInt8](repeating: 0xAA, count: size)
        var failure: SplatError?
        frames.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                do throws(SplatError) {
                    try ZstdCodec.decompress(src, into: dst, stream: "test", file: nil, limits: DecodeLimits(), cancellation: token)
                } catch {
                    failure = error
                }
            }
        }
        if let failure { throw failure }
        return out
    }

    /// The same through `decompress(from:)`: the frames in a file between other bytes, read in
    /// slices.
    static func inflateFromFile(_ frames: [UInt8], size: Int, token: CancellationToken?) throws -> [UInt8] {
        let folder = try Fixtures.temporaryDirectory("zstd-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("frames.bin").path
        let before = [UInt8](repeating: 0x5A, count: 17)
        try Data(before + frames + [1, 2, 3, 4, 5]).write(to: URL(fileURLWithPath: path))
        let file = try RegularFile(path: path, maxBytes: 1 << 30)
        var out = [UInt8](repeating: 0xAA, count: size)
        var failure: SplatError?
        out.withUnsafeMutableBytes { dst in
            do throws(SplatError) {
                try ZstdCodec.decompress(from: file, offset: before.count, count: frames.count, into: dst, stream: "test",
                                         cancellation: token)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return out
    }

    @Test(arguments: ["one frame", "two frames, the second without a content size"])
    func piecesGiveTheOneShotBytes(_ layout: String) throws {
        let half = Self.data.count / 2
        let frames = layout == "one frame" ? SPZTestFiles.zstd(Self.data)
            : SPZTestFiles.zstd(Array(Self.data[..<half])) + SPZTestFiles.zstd(Array(Self.data[half...]), contentSize: false)
        #expect(frames.count > 2 * ZstdCodec.pieceBytes, "\(frames.count) bytes: the stream must take several pieces")
        #expect(try Self.inflate(frames, size: Self.data.count, token: nil) == Self.data)
        #expect(try Self.inflate(frames, size: Self.data.count, token: CancellationToken()) == Self.data)
        #expect(try Self.inflateFromFile(frames, size: Self.data.count, token: nil) == Self.data)
    }

    @Test func anExpiredDeadlineStopsTheStream() throws {
        let frames = SPZTestFiles.zstd(Self.data)
        let error = #expect(throws: SplatError.self) {
            try Self.inflate(frames, size: Self.data.count, token: CancellationToken(seconds: 0))
        }
        #expect(error?.kind == .timeout)
        let fromFile = #expect(throws: SplatError.self) {
            try Self.inflateFromFile(frames, size: Self.data.count, token: CancellationToken(seconds: 0))
        }
        #expect(fromFile?.kind == .timeout)
        let cancelled = CancellationToken()
        cancelled.cancel()
        #expect(throws: SplatError.self) { try Self.inflate(frames, size: Self.data.count, token: cancelled) }
    }

    /// Wrong output sizes, a cut stream and trailing garbage are `corrupt` in both forms.
    @Test func badStreamsAreCorruptEitherWay() throws {
        let sized = SPZTestFiles.zstd(Self.data)
        let unsized = SPZTestFiles.zstd(Self.data, contentSize: false)
        let cases: [(String, [UInt8], Int)] = [
            ("output one byte short, size undeclared", unsized, Self.data.count - 1),
            ("output one byte long, size undeclared", unsized, Self.data.count + 1),
            ("output one byte long, size declared", sized, Self.data.count + 1),
            ("stream cut short", Array(unsized.dropLast(1000)), Self.data.count),
            ("garbage after the frame", unsized + [1, 2, 3, 4, 5, 6, 7, 8], Self.data.count),
        ]
        for (name, frames, size) in cases {
            for token in [nil, CancellationToken()] {
                let error = #expect(throws: SplatError.self, "\(name), token \(token != nil)") {
                    try Self.inflate(frames, size: size, token: token)
                }
                #expect(error?.kind == .corrupt, "\(name), token \(token != nil): \(String(describing: error))")
            }
            let error = #expect(throws: SplatError.self, "\(name), from a file") { try Self.inflateFromFile(frames, size: size, token: nil) }
            #expect(error?.kind == .corrupt, "\(name), from a file: \(String(describing: error))")
        }
    }

    /// A whole SPZ v4 decode gives the same scene with and without a job's token.
    @Test(arguments: [Fixtures.corpusFile("spz/biker.spz"), Fixtures.vector("deg4-v4.spz"), Fixtures.vector("sh1-ext-v4.spz")])
    func spzDecodesTheSameUnderAToken(_ path: String) throws {
        let plain = try SPZTestFiles.decode(path: path).scene
        let tokened = try CancellationToken(seconds: 600).bind { () throws(SplatError) in try SPZTestFiles.decode(path: path) }.scene
        #expect(plain.count == tokened.count && plain.count > 0)
        for column in SplatScene.Column.allCases {
            #expect(memcmp(plain.columnBase(column), tokened.columnBase(column), 4 * plain.count) == 0, "\(column)")
        }
        #expect(plain.sh.count == tokened.sh.count)
        if let a = plain.sh.baseAddress, let b = tokened.sh.baseAddress {
            #expect(memcmp(a, b, 4 * plain.sh.count) == 0)
        }
    }
}
