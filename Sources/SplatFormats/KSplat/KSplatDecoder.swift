import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Decodes mkkellogg GaussianSplats3D `.ksplat` files (`formats-gltf.md` section 17): compression
/// level 0 (f32), 1 (bucketed u16 positions, f16) and 2 (as 1 with u8 SH), SH degree 0–3,
/// several sections. No magic: detected by name. Values are PLY's, unconverted: RDF by
/// convention, no declared frame.
public enum KSplatDecoder {
    /// Splats per parallel chunk; fixed, so results do not depend on the thread count.
    static let chunkSize = 16384

    /// Validates the file header and every section header (sizes, bucket tables, counts).
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        try KSplatHeader(bytes, file: file).sceneHeader()
    }

    /// Decodes every section, in order. `logScale = ln(scale)`; rotations are stored
    /// (w, x, y, z) and normalized; colour bytes give `dc = (b/255 − 0.5)/SH_C0`, `alpha = A/255`;
    /// SH is channel-major inside each band (17.5) and reordered to the model's layout.
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let header = try KSplatHeader(bytes, file: file)
        let kept = try limits.checkScene(count: header.count, fileDegree: header.shDegree, file: file)
        let scene = SplatScene(count: header.count, shDegree: kept)
        let level = header.level
        let layout = KSplatHeader.layouts[level]
        let shTable: [Float] = (0..<256).map { b in
            Float(Double(header.shRange.min) + Double(b) / 255 * (Double(header.shRange.max) - Double(header.shRange.min)))
        }
        let c0 = Float(SphericalHarmonics.c0)
        let per = scene.shFloatsPerSplat
        var start = 0
        var zeroRotations = QuaternionNormalization.ZeroCount()
        guard let base = bytes.baseAddress else { throw SplatError(.empty, "the file is empty", file: file) }
        for section in header.sections {
            let n = section.splatCount
            let bands = min(section.shDegree, kept)
            let slots = slotTargets(degree: section.shDegree, keptDimension: SplatScene.shCoefficientCount(degree: bands))
            let partialEnds = level >= 1 ? partialBucketEnds(bytes, section) : []
            let chunks = (n + chunkSize - 1) / chunkSize
            let tally = QuaternionNormalization.Tally(chunks: chunks)
            let first = start
            Parallel.forEachChunk(count: n, chunkSize: chunkSize) { chunk, range in
                func col(_ c: SplatScene.Column) -> UnsafeMutablePointer<Float> { scene.columnBase(c) + first }
                let x = col(.x), y = col(.y), z = col(.z), sx = col(.logScaleX), sy = col(.logScaleY), sz = col(.logScaleZ)
                let rw = col(.rotW), rx = col(.rotX), ry = col(.rotY), rz = col(.rotZ)
                let alpha = col(.alpha), dcR = col(.dcR), dcG = col(.dcG), dcB = col(.dcB)
                let sh = scene.sh.baseAddress.map { $0 + first * per }
                for i in range {
                    let r = base + section.data + i * section.bytesPerSplat
                    func f32(_ o: Int) -> Float { Float(bitPattern: r.loadUnaligned(fromByteOffset: o, as: UInt32.self).littleEndian) }
                    func f16(_ o: Int) -> Float { SPZDequantizer.halfToFloat(r.loadUnaligned(fromByteOffset: o, as: UInt16.self).littleEndian) }
                    if level == 0 {
                        x[i] = f32(0); y[i] = f32(4); z[i] = f32(8)
                        sx[i] = logf(f32(12)); sy[i] = logf(f32(16)); sz[i] = logf(f32(20))
                        rw[i] = f32(24); rx[i] = f32(28); ry[i] = f32(32); rz[i] = f32(36)
                    } else {
                        let centre = base + section.centers + 12 * bucket(of: i, section, partialEnds)
                        let step = Double(section.bucketBlockSize) / 2 / Double(section.scaleRange)
                        func axis(_ k: Int) -> Float {
                            let u = Double(r.loadUnaligned(fromByteOffset: 2 * k, as: UInt16.self).littleEndian)
                            let c = Float(bitPattern: centre.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self).littleEndian)
                            return Float((u - Double(section.scaleRange)) * step + Double(c))
                        }
                        x[i] = axis(0); y[i] = axis(1); z[i] = axis(2)
                        sx[i] = logf(f16(6)); sy[i] = logf(f16(8)); sz[i] = logf(f16(10))
                        rw[i] = f16(12); rx[i] = f16(14); ry[i] = f16(16); rz[i] = f16(18)
                    }
                    let colour = layout.center + layout.scale + layout.rotation
                    dcR[i] = (Float(r.load(fromByteOffset: colour, as: UInt8.self)) / 255 - 0.5) / c0
                    dcG[i] = (Float(r.load(fromByteOffset: colour + 1, as: UInt8.self)) / 255 - 0.5) / c0
                    dcB[i] = (Float(r.load(fromByteOffset: colour + 2, as: UInt8.self)) / 255 - 0.5) / c0
                    alpha[i] = Float(r.load(fromByteOffset: colour + 3, as: UInt8.self)) / 255
                    guard let sh, per > 0 else { continue }
                    let out = sh + i * per
                    out.update(repeating: 0, count: per)
                    for (slot, target) in slots.enumerated() where target >= 0 {
                        let o = colour + 4 + slot * layout.shComponent
                        switch level {
                        case 0: out[target] = f32(o)
                        case 1: out[target] = f16(o)
                        default: out[target] = shTable[Int(r.load(fromByteOffset: o, as: UInt8.self))]
                        }
                    }
                }
                tally.record(chunk, QuaternionNormalization.normalize(scene, (first + range.lowerBound)..<(first + range.upperBound)))
            }
            zeroRotations.merge(tally.total)
            start += n
        }
        var sceneHeader = header.sceneHeader()
        if let w = zeroRotations.warning { sceneHeader.warnings.append(w) }
        scene.conventionalFrame = .rdf
        scene.warnings = sceneHeader.warnings
        return DecodedScene(scene: scene, header: sceneHeader)
    }

    /// For each stored SH slot of a section, the float index inside a splat's model SH block
    /// (`3k + c`), or −1 for a band above the kept degree. Slot j of band l is coefficient
    /// k = l² − 1 + (j mod (2l+1)) of channel c = ⌊j / (2l+1)⌋.
    static func slotTargets(degree: Int, keptDimension: Int) -> [Int] {
        var out: [Int] = []
        guard degree >= 1 else { return out }
        for l in 1...degree {
            let width = 2 * l + 1
            for j in 0..<(3 * width) {
                let k = l * l - 1 + j % width, c = j / width
                out.append(k < keptDimension ? 3 * k + c : -1)
            }
        }
        return out
    }

    /// Cumulative splat counts at the end of each partial bucket (after the full ones).
    private static func partialBucketEnds(_ bytes: UnsafeRawBufferPointer, _ s: KSplatHeader.Section) -> [Int] {
        var ends: [Int] = []
        ends.reserveCapacity(s.partialBuckets)
        var total = 0
        for b in 0..<s.partialBuckets {
            total += Int(bytes.loadUnaligned(fromByteOffset: s.base + 4 * b, as: UInt32.self).littleEndian)
            ends.append(total)
            if total >= s.splatCount { break }
        }
        return ends
    }

    /// The bucket of splat i: full buckets first, then the partial buckets by their lengths.
    @inline(__always)
    private static func bucket(of i: Int, _ s: KSplatHeader.Section, _ partialEnds: [Int]) -> Int {
        let (product, overflow) = s.fullBuckets.multipliedReportingOverflow(by: s.bucketSize)
        let fullSplats = overflow ? Int.max : product
        if i < fullSplats { return i / s.bucketSize }
        let local = i - fullSplats
        var lo = 0, hi = partialEnds.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if partialEnds[mid] > local { hi = mid } else { lo = mid + 1 }
        }
        return s.fullBuckets + lo
    }
}
