import Foundation
import SplatCore

/// The per-splat pass: splat i is pixel i of every per-splat image (row-major from the
/// top-left, so the pixel index is the splat index). Byte meanings come from the meta's
/// 256-entry tables, so v1 and v2 share this loop.
struct SOGAssembly {
    struct Report {
        var badQuaternions = 0
        var firstBadQuaternion = Int.max
        var firstBadLabel: (index: Int, label: Int)?
    }

    let meta: SOGMeta
    /// Decoded images in `SOGMeta.imageFiles` order; the SH pair is nil when not decoded.
    let images: [ImageBuffer?]
    let keptDegree: Int
    let fileDegree: Int
    /// Labels must be below this (palette size, and inside the centroid image).
    let paletteBound: Int

    // Offsets into the flat byte → value table.
    private static let scaleOffset = 0, dcOffset = 768, alphaOffset = 1536, quatOffset = 1792, shOffset = 2048
    private static let tableCount = 2304
    /// Below this many splats, positions are computed directly instead of through 3 × 65536 tables.
    private static let positionTableThreshold = 65536

    func run(into scene: SplatScene) -> Report {
        let n = scene.count
        var table = [Float]()
        table.reserveCapacity(Self.tableCount)
        for t in meta.scaleTables { table += t }
        for t in meta.dcTables { table += t }
        table += meta.alphaTable
        table += (0..<256).map { Float((Double($0) / 255 - 0.5) * 2.0.squareRoot()) }
        table += meta.shN?.values ?? [Float](repeating: 0, count: 256)

        let mins = meta.meansMins, span = meta.meansMaxs - meta.meansMins
        var positions = [Float]()
        if n > Self.positionTableThreshold {
            positions = [Float](unsafeUninitializedCapacity: 3 * 65536) { buffer, initialized in
                let out = buffer
                Parallel.forEachChunk(count: 3 * 65536, chunkSize: 16384) { _, range in
                    for j in range {
                        let axis = j >> 16
                        out[j] = Self.position(j & 0xFFFF, min: mins[axis], span: span[axis])
                    }
                }
                initialized = 3 * 65536
            }
        }

        let chunkSize = 16384
        let chunks = (n + chunkSize - 1) / chunkSize
        let reports = UnsafeMutableBufferPointer<Report>.allocate(capacity: chunks)
        reports.initialize(repeating: Report())
        defer { reports.deinitialize().deallocate() }
        _ = Self.withPixelPointers(images) { pixels in
            table.withUnsafeBufferPointer { table in
                positions.withUnsafeBufferPointer { positions in
                    Parallel.forEachChunk(count: n, chunkSize: chunkSize, cancellation: CancellationToken.current) { c, range in
                        reports[c] = assemble(range, scene: scene, pixels: pixels, table: table, positions: positions,
                                              mins: mins, span: span)
                    }
                }
            }
        }
        var total = Report()
        for r in reports {
            total.badQuaternions += r.badQuaternions
            total.firstBadQuaternion = min(total.firstBadQuaternion, r.firstBadQuaternion)
            if total.firstBadLabel == nil { total.firstBadLabel = r.firstBadLabel }
        }
        return total
    }

    /// The symmetric log transform's inverse for a 16-bit position value, in Double.
    @inline(__always)
    private static func position(_ q: Int, min: Double, span: Double) -> Float {
        let t = min + span * (Double(q) / 65535)
        return Float(t < 0 ? -expm1(-t) : expm1(t))
    }

    /// Pins every image's pixel array for the duration of `body`, which gets their base
    /// addresses in image order (nil for an image that was not decoded).
    private static func withPixelPointers<R>(_ images: [ImageBuffer?], _ body: ([UnsafePointer<UInt8>?]) -> R) -> R {
        func pin(_ i: Int, _ pinned: [UnsafePointer<UInt8>?]) -> R {
            guard i < images.count else { return body(pinned) }
            guard let image = images[i] else { return pin(i + 1, pinned + [nil]) }
            return image.pixels.withUnsafeBufferPointer { pin(i + 1, pinned + [$0.baseAddress]) }
        }
        return pin(0, [])
    }

    private func assemble(_ range: Range<Int>, scene: SplatScene, pixels images: [UnsafePointer<UInt8>?],
                          table: UnsafeBufferPointer<Float>, positions: UnsafeBufferPointer<Float>,
                          mins: SIMD3<Double>, span: SIMD3<Double>) -> Report {
        func pixels(_ i: Int) -> UnsafePointer<UInt8> { images[i]! }
        let meansL = pixels(0), meansU = pixels(1), quats = pixels(2), scales = pixels(3), sh0 = pixels(4)
        let t = table.baseAddress!
        let px = scene.columnBase(.x), py = scene.columnBase(.y), pz = scene.columnBase(.z)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let rw = scene.columnBase(.rotW), rx = scene.columnBase(.rotX), ry = scene.columnBase(.rotY), rz = scene.columnBase(.rotZ)
        let alpha = scene.columnBase(.alpha)
        let dr = scene.columnBase(.dcR), dg = scene.columnBase(.dcG), db = scene.columnBase(.dcB)
        let usePositionTable = !positions.isEmpty
        var report = Report()

        for i in range {
            let o = 4 * i
            @inline(__always) func coordinate(_ axis: Int) -> Float {
                let q = Int(meansU[o + axis]) << 8 | Int(meansL[o + axis])
                return usePositionTable ? positions[axis << 16 | q] : Self.position(q, min: mins[axis], span: span[axis])
            }
            px[i] = coordinate(0)
            py[i] = coordinate(1)
            pz[i] = coordinate(2)

            // The alpha byte is 252 + the index (w, x, y, z) of the dropped largest component.
            // The mode is random per splat, so the placement uses selects, not a switch.
            let mode = Int(quats[o + 3]) - 252
            let a = t[Self.quatOffset + Int(quats[o])]
            let b = t[Self.quatOffset + Int(quats[o + 1])]
            let c = t[Self.quatOffset + Int(quats[o + 2])]
            let d = max(0, 1 - a * a - b * b - c * c).squareRoot()
            var w = mode == 0 ? d : a
            var x = mode == 0 ? a : (mode == 1 ? d : b)
            var y = mode <= 1 ? b : (mode == 2 ? d : c)
            var z = mode == 3 ? d : c
            // |q| ≥ 1 when d is clamped to 0, and d > 0 otherwise: the length is never 0.
            let inverse = 1 / (w * w + x * x + y * y + z * z).squareRoot()
            w *= inverse; x *= inverse; y *= inverse; z *= inverse
            if mode < 0 {
                w = 1; x = 0; y = 0; z = 0
                report.badQuaternions += 1
                report.firstBadQuaternion = min(report.firstBadQuaternion, i)
            }
            rw[i] = w
            rx[i] = x
            ry[i] = y
            rz[i] = z

            sx[i] = t[Self.scaleOffset + Int(scales[o])]
            sy[i] = t[Self.scaleOffset + 256 + Int(scales[o + 1])]
            sz[i] = t[Self.scaleOffset + 512 + Int(scales[o + 2])]
            dr[i] = t[Self.dcOffset + Int(sh0[o])]
            dg[i] = t[Self.dcOffset + 256 + Int(sh0[o + 1])]
            db[i] = t[Self.dcOffset + 512 + Int(sh0[o + 2])]
            alpha[i] = t[Self.alphaOffset + Int(sh0[o + 3])]
        }

        guard keptDegree > 0 else { return report }
        let centroids = pixels(5), labels = pixels(6)
        let keptDim = SplatScene.shCoefficientCount(degree: keptDegree)
        let fileDim = SplatScene.shCoefficientCount(degree: fileDegree)
        let centroidWidth = 64 * fileDim
        let sh = scene.sh.baseAddress!
        for i in range {
            let label = Int(labels[4 * i]) | Int(labels[4 * i + 1]) << 8
            let out = sh + i * keptDim * 3
            guard label < paletteBound else {
                if report.firstBadLabel == nil { report.firstBadLabel = (i, label) }
                out.update(repeating: 0, count: keptDim * 3)
                continue
            }
            // Palette entry e sits at x = (e mod 64)·dim + k, y = e / 64.
            let base = (label >> 6) * centroidWidth + (label & 63) * fileDim
            for k in 0..<keptDim {
                let p = centroids + 4 * (base + k)
                out[3 * k] = t[Self.shOffset + Int(p[0])]
                out[3 * k + 1] = t[Self.shOffset + Int(p[1])]
                out[3 * k + 2] = t[Self.shOffset + Int(p[2])]
            }
        }
        return report
    }
}
