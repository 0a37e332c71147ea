import CWebP
import SplatCore
@testable import SplatFormats
import Testing

/// SOG's WebP images are decoded in pieces so a deadline can stop a large one: the pieces must
/// give exactly the one-shot decode, a file that ends early must be `corrupt`, and the token
/// must be honoured between pieces.
@Suite struct WebPImageDecoderTests {
    /// A lossless WebP of `width × height` pixels: noise (incompressible, so the file spans
    /// several pieces) or a smooth gradient (one piece).
    static func lossless(width: Int, height: Int, noise: Bool) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for k in 0..<width * height {
            if noise {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                for c in 0..<4 { pixels[4 * k + c] = UInt8(truncatingIfNeeded: state >> (8 * UInt64(c))) }
            } else {
                pixels[4 * k] = UInt8(k % width * 255 / width)
                pixels[4 * k + 1] = UInt8(k / width * 255 / height)
            }
        }
        var output: UnsafeMutablePointer<UInt8>?
        let size = pixels.withUnsafeBufferPointer { WebPEncodeLosslessRGBA($0.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output) }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    static func decode(_ file: [UInt8], cancellation: CancellationToken? = nil) -> Result<ImageBuffer, SplatError> {
        file.withUnsafeBytes { bytes in
            Result { () throws(SplatError) in
                let info = try WebPImageDecoder.info(bytes, file: "t.webp", limits: DecodeLimits())
                return try WebPImageDecoder.decode(bytes, info: info, file: "t.webp", cancellation: cancellation)
            }
        }
    }

    @Test func piecesGiveTheOneShotDecode() throws {
        for (width, height, noise) in [(700, 600, true), (300, 200, false)] {
            let file = Self.lossless(width: width, height: height, noise: noise)
            #expect(noise == (file.count > 4 * WebPImageDecoder.pieceBytes), "\(file.count) bytes")
            let image = try Self.decode(file).get()
            var oneShot = [UInt8](repeating: 0, count: width * height * 4)
            let ok = file.withUnsafeBufferPointer { src in
                oneShot.withUnsafeMutableBufferPointer { WebPDecodeRGBAInto(src.baseAddress, src.count, $0.baseAddress, $0.count, Int32(width * 4)) }
            }
            #expect(ok != nil)
            #expect(image.width == width && image.height == height && image.pixels == oneShot)
        }
    }

    @Test func aFileThatEndsEarlyIsCorrupt() throws {
        let file = Self.lossless(width: 700, height: 600, noise: true)
        let cut = Array(file.prefix(file.count / 2))
        let result = Self.decode(cut)
        guard case .failure(let error) = result else { Issue.record("decoded half a file"); return }
        #expect(error.kind == .corrupt && error.offset == cut.count && error.file == "t.webp", "\(error)")
    }

    @Test func theTokenIsCheckedBetweenPieces() throws {
        let file = Self.lossless(width: 700, height: 600, noise: true)
        let cancelled = CancellationToken()
        cancelled.cancel()
        #expect(Self.decode(file, cancellation: cancelled).failure?.kind == .cancelled)
        #expect(Self.decode(file, cancellation: CancellationToken(seconds: 0)).failure?.kind == .timeout)
        #expect((try? Self.decode(file, cancellation: CancellationToken()).get())?.width == 700)
    }
}

private extension Result {
    var failure: Failure? { if case .failure(let e) = self { e } else { nil } }
}
