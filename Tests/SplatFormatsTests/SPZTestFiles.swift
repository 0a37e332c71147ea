import CZstd
import Foundation
import SplatCore
@testable import SplatFormats

/// Helpers shared by the SPZ decoder and encoder suites.
enum SPZTestFiles {
    static func decode(path: String, limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        let input = try InputBytes(path: path)
        return try SPZDecoder.decode(input.bytes, file: path, limits: limits)
    }

    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        var result: Result<DecodedScene, SplatError>!
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(SplatError) in try SPZDecoder.decode(raw, file: "memory.spz", limits: limits) }
        }
        return try result.get()
    }

    static func readHeader(_ bytes: [UInt8]) throws(SplatError) -> SceneHeader {
        var result: Result<SceneHeader, SplatError>!
        bytes.withUnsafeBytes { raw in
            result = Result { () throws(SplatError) in try SPZDecoder.readHeader(raw, file: "memory.spz", limits: DecodeLimits()) }
        }
        return try result.get()
    }

    /// The error a decode throws, or nil when it succeeds.
    static func decodeError(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> SplatError? {
        do { _ = try decode(bytes, limits: limits); return nil } catch { return error }
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// One zstd frame; `contentSize: false` leaves the frame's content size out.
    static func zstd(_ data: [UInt8], contentSize: Bool = true) -> [UInt8] {
        let cctx = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(cctx) }
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 3)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, contentSize ? 1 : 0)
        var out = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
        let n = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in ZSTD_compress2(cctx, dst.baseAddress, dst.count, src.baseAddress, src.count) }
        }
        precondition(ZSTD_isError(n) == 0)
        return Array(out[0..<n])
    }

    static func u32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    static func u64(_ v: UInt64) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }

    /// A v4 file from already-compressed streams. `uncompressed` gives the TOC sizes.
    static func v4File(count: UInt32, degree: UInt8, flags: UInt8 = 0, extensions: [UInt8] = [],
                       streams: [[UInt8]], uncompressed: [Int]) -> [UInt8] {
        var out = u32(0x5053_474E) + u32(4) + u32(count) + [degree, 12, flags, UInt8(streams.count)]
        out += u32(UInt32(32 + extensions.count)) + [UInt8](repeating: 0, count: 12)
        out += extensions
        for (s, size) in zip(streams, uncompressed) { out += u64(UInt64(s.count)) + u64(UInt64(size)) }
        for s in streams { out += s }
        return out
    }

    /// The legacy payload (16-byte header and blocks) of a v4 file, decompressing its streams.
    static func rawStreams(ofV4 file: [UInt8]) -> [[UInt8]] {
        let s = Int(file[15])
        let toc = Int(file[16]) | Int(file[17]) << 8 | Int(file[18]) << 16 | Int(file[19]) << 24
        var offset = toc + 16 * s
        var result: [[UInt8]] = []
        for i in 0..<s {
            let entry = toc + 16 * i
            let c = file[entry..<entry + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let u = file[entry + 8..<entry + 16].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            var out = [UInt8](repeating: 0, count: u)
            let src = Array(file[offset..<offset + c])
            let n = src.withUnsafeBytes { s in out.withUnsafeMutableBytes { d in ZSTD_decompress(d.baseAddress, d.count, s.baseAddress, s.count) } }
            precondition(n == u)
            result.append(out)
            offset += c
        }
        return result
    }
}
