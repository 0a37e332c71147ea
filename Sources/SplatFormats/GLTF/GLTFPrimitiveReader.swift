import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Fills one primitive's range of the scene (`formats-gltf.md` 12.3): accessor values straight
/// into the columns, then per-splat conversions in place — SCALE to log-scales by the six-step
/// rule, opacity clamped, COLOR_0 as the fallback for DC and alpha, quaternions reordered from
/// glTF's (x, y, z, w) by the lanes themselves and normalized. SPZ primitives are decoded by
/// `SPZDecoder` and copied in (their values go into the model directly, 14.2).
struct GLTFPrimitiveReader {
    typealias ScaleEncoding = GLTFDecoder.ScaleEncoding

    let scene: SplatScene
    let buffers: GLTFBuffers
    let fields: GLTFFields
    let threads: Int?

    /// Reads an uncompressed primitive into splats `start..<start + count`; returns the scale
    /// encoding used and why.
    func read(_ primitive: GLTFSplatPrimitive, _ a: GLTFSplatPrimitive.Attributes, at start: Int, generator: String?,
              scaleOption: ScaleEncoding, warnings: inout [String]) throws(SplatError) -> (encoding: String, reason: String) {
        func lane(_ c: SplatScene.Column) -> FloatLane { FloatLane(base: scene.columnBase(c) + start, stride: 1) }
        let n = primitive.count
        var jobs = [
            try GLTFAccessorReader.job(a.position, into: [lane(.x), lane(.y), lane(.z)], buffers: buffers),
            // glTF's (x, y, z, w) lands in the model's (w, x, y, z) columns.
            try GLTFAccessorReader.job(a.rotation, into: [lane(.rotX), lane(.rotY), lane(.rotZ), lane(.rotW)], buffers: buffers),
            try GLTFAccessorReader.job(a.scale, into: [lane(.logScaleX), lane(.logScaleY), lane(.logScaleZ)], buffers: buffers),
        ]
        if let opacity = a.opacity { jobs.append(try GLTFAccessorReader.job(opacity, into: [lane(.alpha)], buffers: buffers)) }
        if let sh0 = a.sh0 { jobs.append(try GLTFAccessorReader.job(sh0, into: [lane(.dcR), lane(.dcG), lane(.dcB)], buffers: buffers)) }
        if let color = a.color, a.sh0 == nil || a.opacity == nil {
            var lanes: [FloatLane?] = a.sh0 == nil ? [lane(.dcR), lane(.dcG), lane(.dcB)] : [nil, nil, nil]
            if color.components == 4 { lanes.append(a.opacity == nil ? lane(.alpha) : nil) }
            jobs.append(try GLTFAccessorReader.job(color, into: lanes, buffers: buffers))
            if a.opacity == nil {
                if color.components == 3 { scene.columnBase(.alpha).advanced(by: start).update(repeating: 1, count: n) }
                warnings.append("\(primitive.label): opacity taken from COLOR_0" + (color.components == 4 ? " alpha" : " (VEC3: alpha 1)"))
            }
        }
        if a.sh0 == nil { warnings.append("\(primitive.label): SH degree-0 taken from COLOR_0 as (c - 0.5) / SH_C0") }
        let per = scene.shFloatsPerSplat
        let bands = min(primitive.shDegree, scene.shDegree)
        for k in 0..<SplatScene.shCoefficientCount(degree: bands) {
            let base = scene.sh.baseAddress! + start * per + 3 * k
            jobs.append(try GLTFAccessorReader.job(a.sh[k], into: (0..<3).map { FloatLane(base: base + $0, stride: per) }, buffers: buffers))
        }
        try GLTFAccessorReader.read(jobs, count: n, buffers: buffers, fields: fields, threads: threads)
        zeroHigherBands(from: bands, start: start, count: n)

        let (encoding, reason) = scaleEncoding(a, start: start, count: n, generator: generator, option: scaleOption)
        if encoding == .log, scaleOption == .auto { warnings.append("\(primitive.label): SCALE read as log-space (\(reason))") }
        let clamped = convert(start: start, count: n, linearScale: encoding == .linear, colourFallback: a.sh0 == nil,
                              positionScale: primitive.quantizedPositionScale.map(Float.init), zeros: &warnings)
        if clamped > 0 { warnings.append("\(primitive.label): \(clamped) opacity value(s) outside [0, 1] clamped") }
        return (encoding.rawValue, reason)
    }

    /// Copies an SPZ payload's decoded splats into `start..<start + count`.
    func copy(_ payload: SplatScene, to start: Int) {
        let n = payload.count
        for c in SplatScene.Column.allCases {
            (scene.columnBase(c) + start).update(from: payload.columnBase(c), count: n)
        }
        let from = payload.shCoefficientsPerChannel, to = scene.shCoefficientsPerChannel
        if from == to, to > 0 {
            (scene.sh.baseAddress! + start * 3 * to).update(from: payload.sh.baseAddress!, count: n * 3 * to)
        } else if to > 0 {
            // A lower-degree payload in a higher-degree scene: its bands, then zeros.
            if from > 0 {
                let src = payload.sh.baseAddress!, dst = scene.sh.baseAddress!
                for i in 0..<n { (dst + (start + i) * 3 * to).update(from: src + i * 3 * from, count: 3 * from) }
            }
            zeroHigherBands(from: payload.shDegree, start: start, count: n)
        }
    }

    /// Zeroes SH coefficients above `degree` for splats `start..<start + count` (12.5: a
    /// lower-degree primitive renders as if its missing bands were zero).
    private func zeroHigherBands(from degree: Int, start: Int, count: Int) {
        let to = scene.shCoefficientsPerChannel, have = min(SplatScene.shCoefficientCount(degree: degree), to)
        guard have < to else { return }
        let sh = scene.sh.baseAddress!
        for i in start..<(start + count) { (sh + i * 3 * to + 3 * have).update(repeating: 0, count: 3 * (to - have)) }
    }

    /// 12.3: option, `_SCALE`, splat-transform < 2.7.0, signed types, negative floats, else linear.
    private func scaleEncoding(_ a: GLTFSplatPrimitive.Attributes, start: Int, count: Int, generator: String?,
                               option: ScaleEncoding) -> (ScaleEncoding, String) {
        if option != .auto { return (option, "option") }
        if a.scaleName == "_SCALE" { return (.linear, "early-draft _SCALE attribute") }
        if let version = GLTFDecoder.splatTransformVersion(generator), version.lexicographicallyPrecedes([2, 7, 0]) {
            return (.log, "generator splat-transform \(version.map(String.init).joined(separator: ".")) (< 2.7.0)")
        }
        if a.scale.componentType.isSigned { return (.log, "signed component type (only the January 2026 text allowed it)") }
        if a.scale.componentType == .float {
            for c in [SplatScene.Column.logScaleX, .logScaleY, .logScaleZ] {
                let base = scene.columnBase(c) + start
                for i in 0..<count where base[i] < 0 { return (.log, "negative float values") }
            }
        }
        return (.linear, "KHR_gaussian_splatting (linear)")
    }

    /// The in-place conversions, in parallel chunks; returns how many opacities were clamped.
    private func convert(start: Int, count: Int, linearScale: Bool, colourFallback: Bool, positionScale: Float?,
                         zeros warnings: inout [String]) -> Int {
        // Large chunks: this pass touches only the scalar columns, not the SH.
        let chunk = 1 << 16
        let chunks = (count + chunk - 1) / chunk
        let clamps = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(1, chunks))
        clamps.initialize(repeating: 0)
        defer { clamps.deallocate() }
        let tally = QuaternionNormalization.Tally(chunks: chunks)
        let c0 = Float(SphericalHarmonics.c0)
        let s = scene
        let positions = [SplatScene.Column.x, .y, .z].map { s.columnBase($0) }
        let scales = [SplatScene.Column.logScaleX, .logScaleY, .logScaleZ].map { s.columnBase($0) }
        let colours = [SplatScene.Column.dcR, .dcG, .dcB].map { s.columnBase($0) }
        Parallel.forEachChunk(count: count, chunkSize: chunk, threads: threads) { index, local in
            let range = (start + local.lowerBound)..<(start + local.upperBound)
            if let positionScale {
                for p in positions { for i in range { p[i] *= positionScale } }
            }
            if linearScale {
                // ln 0 = −∞ (a kept zero extent); ln of a negative is NaN, which the filter drops.
                for p in scales { for i in range { p[i] = logf(p[i]) } }
            }
            if colourFallback {
                for p in colours { for i in range { p[i] = (p[i] - 0.5) / c0 } }
            }
            let alpha = s.columnBase(.alpha)
            var clamped = 0
            for i in range where !alpha[i].isNaN && !(alpha[i] >= 0 && alpha[i] <= 1) {
                alpha[i] = min(1, max(0, alpha[i]))
                clamped += 1
            }
            clamps[index] = clamped
            tally.record(index, QuaternionNormalization.normalize(s, range))
        }
        if let zero = tally.total.warning { warnings.append(zero) }
        return clamps.reduce(0, +)
    }
}
