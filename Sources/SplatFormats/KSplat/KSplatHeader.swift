import SplatCore

/// The 4096-byte file header and the section headers of a `.ksplat` (`formats-gltf.md` 17.1–
/// 17.3, 17.6), validated in the spec's order with every size in checked 64-bit arithmetic, so
/// that a decode may trust every offset it computes from them.
struct KSplatHeader {
    static let headerBytes = 4096
    static let sectionHeaderBytes = 1024
    /// Byte sizes per level: centre, scale, rotation, one SH component.
    static let layouts: [(center: Int, scale: Int, rotation: Int, shComponent: Int)] = [(12, 12, 16, 4), (6, 6, 8, 2), (6, 6, 8, 1)]
    /// SH components stored per splat for degree 0–3.
    static let shComponents = [0, 9, 24, 45]

    struct Section {
        var splatCount: Int
        var capacity: Int
        var bucketSize: Int
        var bucketCount: Int
        var bucketBlockSize: Float
        var scaleRange: Int
        var fullBuckets: Int
        var partialBuckets: Int
        var shDegree: Int
        /// Offset of the partial-bucket lengths (the section's base).
        var base: Int
        /// Offset of the bucket centres.
        var centers: Int
        /// Offset of the first splat record.
        var data: Int
        var bytesPerSplat: Int
    }

    var versionMajor: Int
    var versionMinor: Int
    var level: Int
    var sceneCenter: SIMD3<Float>
    var shRange: (min: Float, max: Float)
    var sections: [Section]
    var count: Int
    var shDegree: Int
    var warnings: [String] = []

    init(_ bytes: UnsafeRawBufferPointer, file: String?) throws(SplatError) {
        func fail(_ kind: SplatErrorKind, _ message: String, _ offset: Int? = nil, _ field: String? = nil) -> SplatError {
            SplatError(kind, message, file: file, offset: offset, field: field)
        }
        guard bytes.count >= Self.headerBytes else {
            throw fail(.truncated, ".ksplat is \(bytes.count) bytes, shorter than its \(Self.headerBytes)-byte header")
        }
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        func u16(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) }
        func f32(_ at: Int) -> Float { Float(bitPattern: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        versionMajor = Int(bytes[0])
        versionMinor = Int(bytes[1])
        guard versionMajor == 0, versionMinor >= 1 else {
            throw fail(.unsupportedVersion, ".ksplat version \(versionMajor).\(versionMinor) is not supported (only 0.1 and later 0.x)", 0, "version")
        }
        let maxSections = u32(4), sectionCount = u32(8), maxSplats = u32(12), headerCount = u32(16)
        level = u16(20)
        guard level < Self.layouts.count else { throw fail(.badHeader, "compression level \(level) is not 0, 1 or 2", 20, "compressionLevel") }
        sceneCenter = SIMD3(f32(24), f32(28), f32(32))
        // JavaScript's `x || default`: a stored 0 or NaN means the ±1.5 default.
        var lo = f32(36), hi = f32(40)
        if lo == 0 || lo.isNaN { lo = -1.5 }
        if hi == 0 || hi.isNaN { hi = 1.5 }
        guard lo.isFinite, hi.isFinite, hi > lo else { throw fail(.badHeader, "SH range [\(lo), \(hi)] is empty or infinite", 36, "sphericalHarmonicsRange") }
        shRange = (lo, hi)
        guard maxSections > 0 else { throw fail(.empty, ".ksplat has no sections", 4, "maxSectionCount") }
        let tableEnd = Self.headerBytes + Self.sectionHeaderBytes * maxSections
        guard tableEnd <= bytes.count else {
            throw fail(.truncated, "\(maxSections) section headers do not fit in \(bytes.count) bytes", 4, "maxSectionCount")
        }
        if sectionCount != maxSections {
            warnings.append("sectionCount \(sectionCount) differs from maxSectionCount \(maxSections); all \(maxSections) section headers read")
        }
        let layout = Self.layouts[level]
        var sections: [Section] = []
        var base = tableEnd, total = 0, capacity = 0
        for s in 0..<maxSections {
            let h = Self.headerBytes + Self.sectionHeaderBytes * s
            let n = u32(h), cap = u32(h + 4), bucketSize = u32(h + 8), bucketCount = u32(h + 12)
            let block = f32(h + 16), bucketStorage = u16(h + 20), scaleRange = u32(h + 24), storageField = u32(h + 28)
            let full = u32(h + 32), partial = u32(h + 36), degree = u16(h + 40)
            guard degree <= 3 else { throw fail(.badHeader, "section \(s): SH degree \(degree)", h + 40, "sphericalHarmonicsDegree") }
            if degree == 3 { warnings.append("section \(s): SH degree 3 (no known writer); band 3 read channel-major") }
            guard n <= cap else { throw fail(.badHeader, "section \(s): splatCount \(n) > maxSplatCount \(cap)", h, "splatCount") }
            let perSplat = layout.center + layout.scale + layout.rotation + 4 + Self.shComponents[degree] * layout.shComponent
            // All operands are below 2³², so these products and sums fit in 64 bits.
            let bucketBytes = bucketStorage * bucketCount + 4 * partial
            let storage = perSplat * cap + bucketBytes
            guard base + storage <= bytes.count else {
                throw fail(.truncated, "section \(s) needs \(storage) bytes at \(base), the file has \(bytes.count)", h, "maxSplatCount")
            }
            if storageField != 0, storageField != storage {
                warnings.append("section \(s): storageSizeBytes \(storageField), the layout gives \(storage)")
            }
            if level >= 1, n > 0 {
                guard bucketStorage == 12, bucketSize > 0, bucketCount == full + partial, block.isFinite, block > 0 else {
                    throw fail(.badHeader, "section \(s): bucket fields (storage \(bucketStorage), size \(bucketSize), count \(bucketCount), full \(full) + partial \(partial), block \(block))", h + 8, "bucketCount")
                }
                var held = full.multipliedReportingOverflow(by: bucketSize).overflow ? Int.max : full * bucketSize
                for b in 0..<partial where held < n { held += u32(base + 4 * b) }
                guard held >= n else { throw fail(.badHeader, "section \(s): buckets hold \(held) splats, \(n) needed", h + 36, "partiallyFilledBucketCount") }
            }
            sections.append(Section(splatCount: n, capacity: cap, bucketSize: bucketSize, bucketCount: bucketCount,
                                    bucketBlockSize: block, scaleRange: scaleRange == 0 ? 32767 : scaleRange,
                                    fullBuckets: full, partialBuckets: partial, shDegree: degree, base: base,
                                    centers: base + 4 * partial, data: base + bucketBytes, bytesPerSplat: perSplat))
            base += storage
            total += n
            capacity += cap
        }
        if base < bytes.count { warnings.append("\(bytes.count - base) bytes after the last section ignored") }
        guard total > 0 else { throw fail(.empty, ".ksplat sections hold no splats") }
        guard total == headerCount else { throw fail(.badHeader, "header splatCount \(headerCount), the sections hold \(total)", 16, "splatCount") }
        if maxSplats != capacity { warnings.append("header maxSplatCount \(maxSplats), the sections hold \(capacity)") }
        self.sections = sections
        count = total
        shDegree = sections.map(\.shDegree).max() ?? 0
        if Set(sections.map(\.shDegree)).count > 1 {
            warnings.append("sections have different SH degrees; lower ones zero-filled to degree \(shDegree)")
        }
    }

    /// The format-neutral header.
    func sceneHeader() -> SceneHeader {
        let details: [String: String] = [
            "version": "\(versionMajor).\(versionMinor)",
            "compression_level": String(level),
            "sections": String(sections.count),
            "sh_range": "\(shRange.min),\(shRange.max)",
            "scene_center": "\(sceneCenter.x),\(sceneCenter.y),\(sceneCenter.z)",
        ]
        return SceneHeader(format: .ksplat, count: count, shDegree: shDegree, conventionalFrame: .rdf,
                           warnings: warnings, details: details)
    }
}
