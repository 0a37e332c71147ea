import CWebP
import SplatCore

/// Decodes the WebP images of a SOG scene with libwebp (`formats.md` 5.1): the size is read
/// from the header and checked against the limits before any pixel buffer exists, then the
/// image is decoded straight (non-premultiplied) into a buffer of exactly that size.
enum WebPImageDecoder {
    /// What the container header says, without decoding pixels.
    struct Info: Sendable, Equatable {
        var width: Int
        var height: Int
        /// The image chunk is `VP8 ` (lossy): SOG values will be off.
        var isLossy: Bool
        /// `width·height·4`, already checked against the ceiling.
        var decodedBytes: Int

        /// What libwebp holds besides the output while it decodes the image: the lossless
        /// decoder keeps the whole image as ARGB words (`width·height·4`, measured: a 4096²
        /// gradient image peaked 64 MiB above its output); the lossy one only row caches and
        /// the alpha plane (`width·height`).
        var workingBytes: Int { isLossy ? decodedBytes / 4 : decodedBytes }
    }

    /// Reads the RIFF/WebP header and the bitstream's dimensions. Not RIFF `WEBP` →
    /// `unsupported`; animated → `unsupported`; unreadable header → `corrupt`; a side over
    /// `limits.maxImageSide` or `W·H·4` over the ceiling → `too_large`.
    static func info(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> Info {
        guard bytes.count >= 12, bytes.starts(with: "RIFF".utf8),
              UnsafeRawBufferPointer(rebasing: bytes[8..<12]).elementsEqual("WEBP".utf8) else {
            throw SplatError(.unsupported, "not a WebP image (no RIFF/WEBP signature); SOG images must be lossless WebP", file: file)
        }
        let kind = try imageChunkKind(bytes, file: file)
        var width: Int32 = 0, height: Int32 = 0
        guard WebPGetInfo(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, &width, &height) != 0,
              width > 0, height > 0 else {
            throw SplatError(.corrupt, "WebP header could not be read", file: file, offset: 12)
        }
        let w = Int(width), h = Int(height)
        guard w <= limits.maxImageSide, h <= limits.maxImageSide else {
            throw SplatError(.tooLarge, "WebP image is \(w)×\(h); each side must be at most \(limits.maxImageSide)", file: file)
        }
        guard let decoded = CheckedSize.mul(w, h).flatMap({ CheckedSize.mul($0, 4) }) else {
            throw SplatError(.tooLarge, "WebP image \(w)×\(h) overflows a 64-bit size", file: file)
        }
        try limits.checkIntermediate(bytes: decoded, what: "WebP image \(w)×\(h) decoded to RGBA", file: file)
        return Info(width: w, height: h, isLossy: kind == .lossy, decodedBytes: decoded)
    }

    /// Bytes of the file handed to libwebp's incremental decoder at a time; between pieces the
    /// job's token is checked. A one-shot decode cannot be stopped: a 5200² lossless image (about
    /// the largest a SOG scene's images can be under the decode ceiling) took 0.5 s, which a
    /// deadline would have waited for; in pieces it stops within 4–10 ms (+9 % on the whole
    /// decode of incompressible data, nothing measurable on the corpus scenes).
    static let pieceBytes = 256 << 10

    /// Decodes to straight RGBA8 into a buffer of `info.decodedBytes`, feeding libwebp the file
    /// `pieceBytes` at a time and checking `cancellation` between pieces (it throws the token's
    /// error). Failure or a file that ends early → `corrupt`.
    static func decode(_ bytes: UnsafeRawBufferPointer, info: Info, file: String?,
                       cancellation: CancellationToken? = nil) throws(SplatError) -> ImageBuffer {
        var outcome: Result<Void, SplatError> = .success(())
        // libwebp writes every byte of the buffer, so it is not zeroed first.
        let pixels = [UInt8](unsafeUninitializedCapacity: info.decodedBytes) { buffer, initialized in
            outcome = Result { () throws(SplatError) in
                try decodeInPieces(bytes, into: buffer, info: info, file: file, cancellation: cancellation)
            }
            // On failure the array is dropped: declaring it empty spares zeroing (and faulting
            // in) the rest of a buffer that may be hundreds of megabytes, after a deadline.
            if case .success = outcome { initialized = info.decodedBytes }
        }
        try outcome.get()
        return ImageBuffer(width: info.width, height: info.height, channels: 4, pixels: pixels)
    }

    private static func decodeInPieces(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>,
                                       info: Info, file: String?, cancellation: CancellationToken?) throws(SplatError) {
        guard let decoder = WebPINewRGB(MODE_RGBA, buffer.baseAddress, info.decodedBytes, Int32(info.width * 4)) else {
            throw SplatError(.corrupt, "WebP image \(info.width)×\(info.height): libwebp could not start a decoder", file: file)
        }
        defer { WebPIDelete(decoder) }
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var available = 0
        while true {
            available = min(bytes.count, available + pieceBytes)
            // The data so far, from the start: libwebp reads it in place instead of copying it.
            let status = WebPIUpdate(decoder, base, available)
            if status == VP8_STATUS_OK { return }
            guard status == VP8_STATUS_SUSPENDED else {
                throw SplatError(.corrupt, "WebP image \(info.width)×\(info.height) failed to decode (libwebp status \(status.rawValue))",
                                 file: file, offset: available)
            }
            guard available < bytes.count else {
                throw SplatError(.corrupt, "WebP image \(info.width)×\(info.height) ends before its last pixel", file: file,
                                 offset: bytes.count)
            }
            try cancellation?.check("while decoding WebP image \(info.width)×\(info.height)")
        }
    }

    private enum ChunkKind { case lossy, lossless }

    /// Walks the RIFF chunks to the image bitstream: `VP8 ` or `VP8L`, directly or after `VP8X`
    /// (and optional `ICCP`/`ALPH`, ignored).
    private static func imageChunkKind(_ bytes: UnsafeRawBufferPointer, file: String?) throws(SplatError) -> ChunkKind {
        var at = 12
        while at + 8 <= bytes.count {
            let tag = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at..<at + 4]), as: UTF8.self)
            let size = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)))
            switch tag {
            case "VP8 ": return .lossy
            case "VP8L": return .lossless
            case "VP8X":
                if at + 9 <= bytes.count, bytes[at + 8] & 0x02 != 0 {
                    throw SplatError(.unsupported, "animated WebP is not a SOG image", file: file, offset: at)
                }
            default: break
            }
            // Chunks are padded to an even size.
            guard let next = CheckedSize.add(at + 8, size + (size & 1)) else { break }
            at = next
        }
        throw SplatError(.corrupt, "WebP file has no VP8/VP8L image chunk", file: file)
    }
}
