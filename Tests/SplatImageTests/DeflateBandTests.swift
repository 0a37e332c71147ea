import CDeflate
import CZlib
import Testing
import SplatCore
@testable import SplatImage

/// The band joiner's two halves: the scanner finds libdeflate's final block in whatever it
/// writes (stored, fixed and dynamic blocks), and bands compressed apart inflate with zlib as
/// one stream, Adler-32 included.
@Suite("Deflate bands")
struct DeflateBandTests {
    /// Inputs that make libdeflate choose each block type: noise (stored), a short text (fixed),
    /// long repetitive and render-like data (dynamic, several blocks).
    static let inputs: [(String, [UInt8])] = [
        ("noise", PNGWriterTests.noiseBytes(300_000, seed: 5)),
        ("short text", Array("a small text, compressed with the fixed code".utf8)),
        ("one byte", [42]),
        ("zeros", [UInt8](repeating: 0, count: 200_000)),
        ("words", (0..<40_000).flatMap { Array("w\($0 % 977) ".utf8) }),
        ("render rows", PNGWriterTests.renderLike(width: 300, height: 300, channels: 4).pixels),
    ]

    static func compress(_ input: [UInt8], level: Int32) throws -> [UInt8] {
        let compressor = try #require(libdeflate_alloc_compressor(level))
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_deflate_compress_bound(compressor, input.count))
        let n = out.withUnsafeMutableBytes { o in input.withUnsafeBytes { libdeflate_deflate_compress(compressor, $0.baseAddress, $0.count, o.baseAddress, o.count) } }
        return Array(out.prefix(n))
    }

    @Test(arguments: [0, 1, 4, 6, 9, 12])
    func scannerFindsTheFinalBlockAtTheEnd(level: Int) throws {
        for (name, input) in Self.inputs {
            let stream = try Self.compress(input, level: Int32(level))
            let block = try stream.withUnsafeBytes { try DeflateStreamScanner.finalBlock(of: $0) }
            #expect((block.endBit + 7) / 8 == stream.count, "\(name)")
            #expect(stream[block.headerBit >> 3] >> UInt8(block.headerBit & 7) & 1 == 1, "\(name): BFINAL is set")
            #expect(block.headerBit < block.endBit)
        }
    }

    /// Each input in three bands compressed apart, joined with the zlib header and the combined
    /// Adler-32: zlib inflates the bytes back.
    @Test(arguments: [0, 1, 4, 6, 12])
    func joinedBandsInflateAsOneZlibStream(level: Int) throws {
        let compressor = try DeflateCompressor(level: level)
        for (name, input) in Self.inputs where input.count >= 3 {
            let cuts = [0, input.count / 3, input.count * 2 / 3, input.count]
            var stream = ZlibBandStream.header(level: level)
            var adler: UInt32 = 1
            for k in 0..<3 {
                let band = Array(input[cuts[k]..<cuts[k + 1]])
                try band.withUnsafeBytes { raw in
                    stream += try ZlibBandStream.compressBand(raw, isLast: k == 2, compressor: compressor)
                    adler = k == 0 ? ZlibBandStream.adler32(raw) : ZlibBandStream.combine(adler: adler, with: ZlibBandStream.adler32(raw), secondLength: raw.count)
                }
            }
            #expect(adler == UInt32(input.withUnsafeBufferPointer { CZlib.adler32(1, $0.baseAddress, UInt32($0.count)) }), "\(name)")
            stream += ZlibBandStream.trailer(adler: adler)
            var out = [UInt8](repeating: 0, count: input.count + 1)
            var length = UInt(out.count)
            let status = out.withUnsafeMutableBufferPointer { o in stream.withUnsafeBufferPointer { uncompress(o.baseAddress, &length, $0.baseAddress, UInt($0.count)) } }
            #expect(status == Z_OK, "\(name): zlib says \(status)")
            #expect(Array(out.prefix(Int(length))) == input, "\(name)")
        }
    }

    @Test func truncatedOrDamagedStreamsGiveTypedErrors() throws {
        let stream = try Self.compress(Self.inputs[4].1, level: 6)
        for cut in stride(from: 0, to: stream.count, by: max(1, stream.count / 200)) {
            let prefix = Array(stream.prefix(cut))
            #expect(throws: SplatError.self) { try prefix.withUnsafeBytes { try DeflateStreamScanner.finalBlock(of: $0) } }
        }
        // Random bytes: an error or, rarely, a stream that happens to parse — never a trap.
        var state: UInt64 = 7
        for k in 0..<600 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            var bytes = PNGWriterTests.noiseBytes(Int(state >> 54) + 1, seed: state | 1)
            // Half of them start with a dynamic block header, so the code-length parsing is fuzzed too.
            if k % 2 == 0 { bytes[0] = bytes[0] & ~7 | 0b101 }
            _ = try? bytes.withUnsafeBytes { try DeflateStreamScanner.finalBlock(of: $0) }
        }
        // Reserved block type 3.
        #expect(throws: SplatError.self) { try [UInt8]([0x07, 0, 0]).withUnsafeBytes { try DeflateStreamScanner.finalBlock(of: $0) } }
    }

    @Test func headerIsAValidZlibHeaderForEveryLevel() {
        for level in 0...12 {
            let h = ZlibBandStream.header(level: level)
            #expect(h[0] == 0x78 && (Int(h[0]) << 8 | Int(h[1])) % 31 == 0 && h[1] & 0x20 == 0, "level \(level)")
        }
    }
}
