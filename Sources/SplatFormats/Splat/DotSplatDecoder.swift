import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Decodes antimatter15 `.splat` files (`formats.md` 6): headerless 32-byte records of position,
/// linear scale, RGBA bytes and (w, x, y, z) rotation bytes. SH degree 0; RDF by convention.
public enum DotSplatDecoder {
    /// Bytes per record.
    public static let recordSize = 32

    /// The count is the file size over 32; nothing else is stored.
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        try readHeader(fileSize: bytes.count, file: file, limits: limits)
    }

    /// The header of a `.splat` file of `fileSize` bytes, known before its bytes arrive (the
    /// count is all there is to it).
    public static func readHeader(fileSize: Int, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        let n = try recordCount(byteCount: fileSize, file: file)
        return SceneHeader(format: .splat, count: n, shDegree: 0, conventionalFrame: .rdf,
                           details: ["record_bytes": String(recordSize)])
    }

    /// Decodes every record. σ becomes ln σ (σ = ±0 gives −∞; a negative, NaN or +∞ σ leaves a
    /// non-finite log-scale for the central filter to drop); `dc = (byte/255 − 0.5)/SH_C0`;
    /// `alpha = A/255`; `q = (byte − 128)/128`, then normalized.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        var header = try readHeader(bytes, file: file, limits: limits)
        let n = header.count
        try limits.checkScene(count: n, fileDegree: 0, file: file)
        guard let base = bytes.baseAddress else {
            throw SplatError(.empty, "the file is empty", file: file)
        }
        let scene = SplatScene(count: n, shDegree: 0)
        let chunkSize = 8192
        let tally = QuaternionNormalization.Tally(chunks: (n + chunkSize - 1) / chunkSize)
        let x = scene.columnBase(.x), y = scene.columnBase(.y), z = scene.columnBase(.z)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let rw = scene.columnBase(.rotW), rx = scene.columnBase(.rotX), ry = scene.columnBase(.rotY), rz = scene.columnBase(.rotZ)
        let alpha = scene.columnBase(.alpha)
        let dcR = scene.columnBase(.dcR), dcG = scene.columnBase(.dcG), dcB = scene.columnBase(.dcB)
        let c0 = Float(SphericalHarmonics.c0)
        Parallel.forEachChunk(count: n, chunkSize: chunkSize, cancellation: CancellationToken.current) { chunk, range in
            for i in range {
                let r = base + i * recordSize
                x[i] = r.loadUnaligned(fromByteOffset: 0, as: Float.self)
                y[i] = r.loadUnaligned(fromByteOffset: 4, as: Float.self)
                z[i] = r.loadUnaligned(fromByteOffset: 8, as: Float.self)
                sx[i] = logf(r.loadUnaligned(fromByteOffset: 12, as: Float.self))
                sy[i] = logf(r.loadUnaligned(fromByteOffset: 16, as: Float.self))
                sz[i] = logf(r.loadUnaligned(fromByteOffset: 20, as: Float.self))
                dcR[i] = (Float(r.load(fromByteOffset: 24, as: UInt8.self)) / 255 - 0.5) / c0
                dcG[i] = (Float(r.load(fromByteOffset: 25, as: UInt8.self)) / 255 - 0.5) / c0
                dcB[i] = (Float(r.load(fromByteOffset: 26, as: UInt8.self)) / 255 - 0.5) / c0
                alpha[i] = Float(r.load(fromByteOffset: 27, as: UInt8.self)) / 255
                rw[i] = (Float(r.load(fromByteOffset: 28, as: UInt8.self)) - 128) / 128
                rx[i] = (Float(r.load(fromByteOffset: 29, as: UInt8.self)) - 128) / 128
                ry[i] = (Float(r.load(fromByteOffset: 30, as: UInt8.self)) - 128) / 128
                rz[i] = (Float(r.load(fromByteOffset: 31, as: UInt8.self)) - 128) / 128
            }
            tally.record(chunk, QuaternionNormalization.normalize(scene, range))
        }
        if let w = tally.total.warning { header.warnings.append(w) }
        scene.conventionalFrame = .rdf
        scene.warnings = header.warnings
        return DecodedScene(scene: scene, header: header)
    }

    /// Size 0 → `empty`; not a multiple of 32 → `bad_size`.
    private static func recordCount(byteCount: Int, file: String?) throws(SplatError) -> Int {
        guard byteCount > 0 else { throw SplatError(.empty, "the .splat file is empty", file: file) }
        guard byteCount % recordSize == 0 else {
            throw SplatError(.badSize, ".splat size \(byteCount) is not a multiple of \(recordSize)",
                             file: file, offset: byteCount - byteCount % recordSize)
        }
        return byteCount / recordSize
    }
}
