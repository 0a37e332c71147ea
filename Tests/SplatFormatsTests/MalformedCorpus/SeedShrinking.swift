import CZstd
import TestSupport

/// Cuts a valid file down to its first splats, keeping its exact layout.
enum SeedShrinking {
    static func shrink(_ b: [UInt8], name: String) -> [UInt8]? {
        switch SeedKind(bytes: b, name: name) {
        case .spzV4: return spzV4(b)
        case .spzLegacy: return spzLegacy(b)
        case .ply, .compressedPLY: return ply(b)
        case .splat: return b.count > 32 * seedSplats && b.count % 32 == 0 ? Array(b[0..<32 * seedSplats]) : nil
        default: return nil
        }
    }

    static func legacyBlocks(version: Int, count n: Int, degree: Int) -> [Int] {
        let dim = (degree + 1) * (degree + 1) - 1
        return [n * (version == 1 ? 6 : 9), n, 3 * n, 3 * n, n * (version < 3 ? 3 : 4), 3 * n * dim]
    }

    static func spzLegacy(_ b: [UInt8]) -> [UInt8]? {
        guard let payload = TestGzip.gunzip(b, maxBytes: mutationLimits.maxDecodedBytes), payload.count >= 16 else { return nil }
        let version = MalformedBytes.u32(payload, 4), n = MalformedBytes.u32(payload, 8), degree = Int(payload[12])
        guard n > seedSplats, (1...3).contains(version), degree <= 4, n < 1 << 24 else { return nil }
        var out = MalformedBytes.setting(Array(payload[0..<16]), 8, UInt32(seedSplats))
        var at = 16
        for size in legacyBlocks(version: version, count: n, degree: degree) {
            out += payload[at..<at + size / n * seedSplats]
            at += size
        }
        out += payload[at...]  // extension records and trailers stay
        return TestGzip.gzip(out)
    }

    static func spzV4(_ b: [UInt8]) -> [UInt8]? {
        let n = MalformedBytes.u32(b, 8), streams = Int(b[15]), toc = MalformedBytes.u32(b, 16)
        guard n > seedSplats, toc + 16 * streams <= b.count else { return nil }
        var at = toc + 16 * streams
        var compressed: [[UInt8]] = []
        for i in 0..<streams {
            let c = Int(MalformedBytes.u64(b, toc + 16 * i)), u = Int(MalformedBytes.u64(b, toc + 16 * i + 8))
            guard u % n == 0, at + c <= b.count else { return nil }
            var plain = [UInt8](repeating: 0, count: u)
            let got = b[at..<at + c].withUnsafeBytes { src in plain.withUnsafeMutableBytes { ZSTD_decompress($0.baseAddress, $0.count, src.baseAddress, src.count) } }
            guard got == u else { return nil }
            let kept = Array(plain[0..<u / n * seedSplats])
            var out = [UInt8](repeating: 0, count: ZSTD_compressBound(kept.count))
            let size = kept.withUnsafeBytes { src in out.withUnsafeMutableBytes { ZSTD_compress($0.baseAddress, $0.count, src.baseAddress, src.count, 3) } }
            compressed.append(Array(out[0..<size]))
            at += c
        }
        var out = MalformedBytes.setting(Array(b[0..<toc]), 8, UInt32(seedSplats))
        for (i, stream) in compressed.enumerated() {
            out += MalformedBytes.le(UInt64(stream.count)) + MalformedBytes.le(MalformedBytes.u64(b, toc + 16 * i + 8) / UInt64(n) * UInt64(seedSplats))
        }
        return out + compressed.joined()
    }

    /// Binary PLY with fixed-size rows: each element keeps its first rows (compressed PLY keeps
    /// one 256-splat chunk so C = ceil(N/256) still holds).
    static func ply(_ b: [UInt8]) -> [UInt8]? {
        guard let layout = PLYLayout(b), layout.binary, layout.elements.allSatisfy({ $0.rowSize != nil }),
              layout.elements.contains(where: { $0.name == "vertex" && $0.count > seedSplats }) else { return nil }
        let compressed = layout.elements.contains { $0.name == "chunk" }
        var header = b[0..<layout.headerEnd].map { $0 }
        var body: [UInt8] = []
        for (element, start) in zip(layout.elements, layout.elementStarts).reversed() {
            let keep = compressed ? (element.name == "chunk" ? 1 : min(element.count, 256)) : min(element.count, seedSplats)
            header.replaceSubrange(element.line, with: Array("element \(element.name) \(keep)".utf8))
            guard let start, let row = element.rowSize, start + keep * row <= b.count else { return nil }
            body = Array(b[start..<start + keep * row]) + body
        }
        return header + body
    }
}
