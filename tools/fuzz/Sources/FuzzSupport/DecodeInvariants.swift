import Foundation
import SplatCore
import SplatFormats

/// What every decode of hostile bytes must satisfy: a documented error kind, or a scene whose
/// values are finite (or one of the allowed infinities), with unit quaternions and alphas in
/// [0, 1]. A violation aborts, which libFuzzer records as a crash with the input.
public enum DecodeInvariants {
    /// A small ceiling bounds every allocation the decoders may make, so the fuzzer's RSS and
    /// malloc limits only trip on a leak or an unchecked allocation, and keeps executions fast
    /// (a legitimate 200,000-splat decode takes seconds under ASan).
    public static let limits = DecodeLimits(maxDecodedBytes: 4 << 20)

    /// The kinds of `formats.md` 0.2. `io`, `invalid_argument` and `timeout` cannot come from
    /// bytes already in memory.
    public static let documentedKinds: Set<SplatErrorKind> = [
        .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount,
        .tooLarge, .empty, .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite,
    ]

    /// Reads the header, then decodes, and checks both outcomes.
    public static func run(_ file: [UInt8], name: String, format: SplatFormat?) {
        let input = file.withUnsafeBytes { InputBytes(copying: $0, name: name) }
        var header: SceneHeader?
        do throws(SplatError) {
            header = try SplatFile.readHeader(input, format: format, limits: limits)
        } catch {
            check(error, stage: "readHeader")
        }
        do throws(SplatError) {
            let decoded = try SplatFile.decode(input, format: format, limits: limits)
            check(decoded, header: header)
        } catch {
            check(error, stage: "decode")
        }
    }

    public static func check(_ error: SplatError, stage: String) {
        guard documentedKinds.contains(error.kind) else { fail("\(stage): undocumented error kind: \(error)") }
        guard !error.message.isEmpty else { fail("\(stage): error without a message: \(error)") }
    }

    public static func check(_ decoded: DecodedScene, header: SceneHeader?) {
        let s = decoded.scene
        let n = s.count
        guard n >= 0, n <= decoded.header.count else { fail("scene has \(n) splats, header declares \(decoded.header.count)") }
        guard (0...4).contains(s.shDegree) else { fail("SH degree \(s.shDegree)") }
        guard s.decodedBytes <= limits.maxDecodedBytes else { fail("scene of \(s.decodedBytes) bytes is over the ceiling") }
        guard let header else { fail("decode succeeded where readHeader failed") }
        guard header.count == decoded.header.count, header.shDegree == decoded.header.shDegree else {
            fail("readHeader says \(header.count) splats at degree \(header.shDegree), decode \(decoded.header.count) at \(decoded.header.shDegree)")
        }
        let per = s.shFloatsPerSplat
        let sh = s.sh
        // Column by column, without per-splat allocation: under ASan a scene of 10⁵ splats
        // would otherwise spend seconds here.
        for column in [s.x, s.y, s.z, s.dcR, s.dcG, s.dcB] {
            if let i = column.firstIndex(where: { !$0.isFinite }) { fail("splat \(i): non-finite position or DC \(column[i])") }
        }
        for column in [s.logScaleX, s.logScaleY, s.logScaleZ] {
            if let i = column.firstIndex(where: { $0.isNaN || $0 == .infinity }) { fail("splat \(i): log-scale \(column[i])") }
        }
        if let i = s.alpha.firstIndex(where: { !($0 >= 0 && $0 <= 1) }) { fail("splat \(i): alpha \(s.alpha[i])") }
        for i in 0..<n {
            let q = SIMD4<Double>(Double(s.rotW[i]), Double(s.rotX[i]), Double(s.rotY[i]), Double(s.rotZ[i]))
            let norm = (q * q).sum().squareRoot()
            guard abs(norm - 1) < 1e-3 else { fail("splat \(i): quaternion \(q) has length \(norm)") }
        }
        if let j = sh[0..<n * per].firstIndex(where: { !$0.isFinite }) { fail("splat \(j / max(1, per)): SH value \(sh[j])") }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data(("invariant violated: " + message + "\n").utf8))
        abort()
    }
}
