import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes the standard 3DGS PLY (`graphdeco-inria/gaussian-splatting` `save_ply` layout):
/// binary little-endian, all `float`, properties `x y z nx ny nz f_dc_0..2 f_rest_*
/// (channel-major) opacity scale_0..2 rot_0..3` with `rot_0` = w. Values are written exactly as
/// they are in the scene (no frame conversion); opacity is the logit of alpha clamped to
/// [1e-6, 1 − 1e-6]; a log-scale of −∞ is written as −∞. Non-default models get a
/// `comment SplatRenderMode: mip|2dgs` line, which `PLYDecoder` reads back.
public enum PLYEncoder {
    /// Alpha is clamped to [alphaClamp, 1 − alphaClamp] before the logit (`formats.md` 0.1).
    public static let alphaClamp = 1e-6

    /// The PLY header text for `scene`, ending with `end_header\n`.
    public static func header(for scene: SplatScene) -> String {
        var lines = ["ply", "format binary_little_endian 1.0"]
        switch scene.model {
        case .default: break
        case .antialiased: lines.append("comment SplatRenderMode: mip")
        case .twoDGS: lines.append("comment SplatRenderMode: 2dgs")
        }
        lines.append("element vertex \(scene.count)")
        for name in propertyNames(shCoefficientsPerChannel: scene.shCoefficientsPerChannel) {
            lines.append("property float \(name)")
        }
        lines.append("end_header")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Property names in file order for `dim` non-DC coefficients per channel.
    public static func propertyNames(shCoefficientsPerChannel dim: Int) -> [String] {
        ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"]
            + (0..<(3 * dim)).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    }

    /// The whole file as bytes.
    public static func encode(_ scene: SplatScene) -> [UInt8] {
        let head = Array(header(for: scene).utf8)
        let floatsPerRow = 17 + scene.shFloatsPerSplat
        let total = head.count + scene.count * floatsPerRow * 4
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            head.withUnsafeBytes { base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            writeRows(scene, to: base + head.count)
            initialized = total
        }
    }

    /// Writes the file to `path` atomically (a reader never sees a partial file).
    public static func write(_ scene: SplatScene, to path: String) throws(SplatError) {
        try AtomicFileWriter.write(encode(scene), to: path)
    }

    /// Rows in file order, in parallel: each row is `17 + 3·dim` little-endian floats.
    private static func writeRows(_ scene: SplatScene, to out: UnsafeMutableRawPointer) {
        let dim = scene.shCoefficientsPerChannel
        let shPer = scene.shFloatsPerSplat
        let stride = (17 + shPer) * 4
        let x = scene.columnBase(.x), y = scene.columnBase(.y), z = scene.columnBase(.z)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let rw = scene.columnBase(.rotW), rx = scene.columnBase(.rotX), ry = scene.columnBase(.rotY), rz = scene.columnBase(.rotZ)
        let alpha = scene.columnBase(.alpha)
        let dcR = scene.columnBase(.dcR), dcG = scene.columnBase(.dcG), dcB = scene.columnBase(.dcB)
        let sh = scene.sh.baseAddress
        let lo = alphaClamp, hi = 1 - alphaClamp
        Parallel.forEachChunk(count: scene.count, chunkSize: 8192) { _, range in
            for i in range {
                let row = out + i * stride
                @inline(__always) func put(_ index: Int, _ v: Float) {
                    row.storeBytes(of: v.bitPattern.littleEndian, toByteOffset: 4 * index, as: UInt32.self)
                }
                put(0, x[i]); put(1, y[i]); put(2, z[i])
                put(3, 0); put(4, 0); put(5, 0)
                put(6, dcR[i]); put(7, dcG[i]); put(8, dcB[i])
                if let sh {
                    // File: f_rest_{c·dim + k}; scene: sh[(i·dim + k)·3 + c].
                    let s = sh + i * shPer
                    for k in 0..<dim {
                        put(9 + k, s[k * 3])
                        put(9 + dim + k, s[k * 3 + 1])
                        put(9 + 2 * dim + k, s[k * 3 + 2])
                    }
                }
                let o = 9 + shPer
                let a = Double(alpha[i])
                // NaN alpha stays NaN (min/max would silently turn it into a bound).
                let clamped = a.isNaN ? a : Swift.min(hi, Swift.max(lo, a))
                put(o, Float(log(clamped / (1 - clamped))))
                put(o + 1, sx[i]); put(o + 2, sy[i]); put(o + 3, sz[i])
                put(o + 4, rw[i]); put(o + 5, rx[i]); put(o + 6, ry[i]); put(o + 7, rz[i])
            }
        }
    }
}
