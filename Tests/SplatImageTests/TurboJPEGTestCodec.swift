import CTurboJPEG
import SplatCore

/// Decodes JPEGs with TurboJPEG's decompressor, and encodes a whole image in one TurboJPEG
/// call, as the reference the strip-joined writer must match pixel for pixel.
enum TurboJPEGTestCodec {
    struct Decoded {
        var image: ImageBuffer
        /// TJSAMP_444 = 0, TJSAMP_420 = 2.
        var subsampling: Int32
    }

    static func decode(_ bytes: [UInt8]) throws -> Decoded {
        guard let handle = tjInitDecompress() else { throw SplatError(.io, "no TurboJPEG decompressor") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw SplatError(.corrupt, "TurboJPEG cannot read the header: \(String(cString: tjGetErrorStr2(handle)))")
        }
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
        let status = pixels.withUnsafeMutableBufferPointer { out in
            tjDecompress2(handle, bytes, UInt(bytes.count), out.baseAddress, width, width * 3, height, Int32(TJPF_RGB.rawValue),
                          Int32(TJFLAG_ACCURATEDCT | TJFLAG_STOPONWARNING))
        }
        guard status == 0 else { throw SplatError(.corrupt, "TurboJPEG cannot decode: \(String(cString: tjGetErrorStr2(handle)))") }
        return Decoded(image: ImageBuffer(width: Int(width), height: Int(height), channels: 3, pixels: pixels), subsampling: subsampling)
    }

    /// One TurboJPEG call over a whole RGB image, with the writer's flags.
    static func encodeWhole(_ image: ImageBuffer, quality: Int32, subsampling: TJSAMP) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw SplatError(.io, "no TurboJPEG compressor") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer { p in
            tjCompress2(handle, p.baseAddress, Int32(image.width), Int32(image.width * 3), Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(subsampling.rawValue), quality, Int32(TJFLAG_ACCURATEDCT))
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw SplatError(.io, "TurboJPEG cannot encode") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// Offsets of JPEG markers (0xFF followed by `marker`) outside entropy-coded stuffing.
    static func count(marker predicate: (UInt8) -> Bool, in bytes: [UInt8]) -> Int {
        var n = 0
        for i in 0..<bytes.count - 1 where bytes[i] == 0xFF && predicate(bytes[i + 1]) { n += 1 }
        return n
    }
}
