/// Applies a scene's node transforms (`SplatScene.nodeInstances`, `formats-gltf.md` 12.6): each
/// instance gets a copy of its mesh's stored splats moved by the instance's global matrix G.
///
/// With A = G's upper-left 3×3 and t its translation: positions become A·p + t; covariances
/// A·Σ·Aᵀ, exact for any A. A rotation with a uniform scale keeps the splat's axes: the
/// quaternion is pre-multiplied by A's rotation and the log-scales shifted by ln(scale), exactly.
/// Any other A (non-uniform scale, shear, mirror) is re-diagonalized per splat: log-scales from
/// the eigenvalues of A·Σ·Aᵀ, the rotation from its eigenvectors. SH of every band turn by A's
/// rotation (`SHRotation`); a mirror also negates the odd bands (Y_l(−d) = (−1)^l Y_l(d)).
/// Runs after decoding and before the frame conversion.
public enum SceneTransform {
    /// Splats per parallel chunk; fixed, so results do not depend on the thread count.
    static let chunkSize = 16384

    /// The flattened scene, instances in their traversal order, without `nodeInstances`.
    /// Returns `scene` itself (its `nodeInstances` cleared) when there are no instances or they
    /// change nothing. Instances with a zero or non-finite column in A are skipped with a
    /// warning. The instanced size is checked against `limits` before anything is allocated
    /// (`too_large`, `implausible_count`); splats the transform makes non-finite (overflow) are
    /// dropped as the decoders' non-finite rule says (`non_finite` under `limits.strict`).
    public static func flatten(_ scene: SplatScene, limits: DecodeLimits = DecodeLimits(),
                               threads: Int? = nil) throws(SplatError) -> SplatScene {
        guard let facts = scene.nodeInstances else { return scene }
        if facts.isTrivial {
            scene.nodeInstances = nil
            return scene
        }
        var warnings: [String] = []
        var plans: [InstancePlan] = []
        var total = 0
        let bands = SplatScene.shCoefficientCount(degree: scene.shDegree) > 0 ? scene.shDegree : 0
        for instance in facts.instances {
            guard facts.meshSplats.indices.contains(instance.mesh) else { continue }
            let range = facts.meshSplats[instance.mesh]
            let label = "nodes[\(instance.node)] (mesh \(instance.mesh))"
            guard !range.isEmpty else { continue }
            guard let plan = InstancePlan(instance, range: range, outStart: total, shDegree: bands,
                                          label: label, warnings: &warnings) else { continue }
            guard let sum = CheckedSize.add(total, range.count) else {
                throw SplatError(.tooLarge, "node instances overflow a 64-bit splat count", field: "nodes")
            }
            total = sum
            plans.append(plan)
        }
        guard total <= limits.maxSplats else {
            throw SplatError(.implausibleCount, "node instances draw \(total) splats; the limit is \(limits.maxSplats)", field: "nodes")
        }
        guard let bytes = DecodeLimits.decodedBytes(count: total, degree: scene.shDegree), bytes <= limits.maxDecodedBytes else {
            throw SplatError(.tooLarge, "node instances draw \(total) splats at SH degree \(scene.shDegree), over the decoded-size limit of \(limits.maxDecodedBytes) bytes",
                             field: "nodes")
        }
        let out = SplatScene(count: total, shDegree: scene.shDegree)
        out.model = scene.model
        out.declaredFrame = scene.declaredFrame
        out.conventionalFrame = scene.conventionalFrame
        out.cameraHints = scene.cameraHints
        out.warnings = scene.warnings + warnings
        for plan in plans {
            Parallel.forEachChunk(count: plan.range.count, chunkSize: chunkSize, threads: threads) { _, chunk in
                plan.apply(from: scene, to: out, chunk)
            }
        }
        try NonFiniteFilter.apply(to: out, strict: limits.strict)
        return out
    }
}

/// What one instance does to each of its splats, worked out once from its matrix.
struct InstancePlan: Sendable {
    let range: Range<Int>
    let outStart: Int
    let a: Matrix3
    let t: SIMD3<Double>
    /// Rotation plus uniform scale: (q of the rotation, ln scale); nil for the general path.
    let similarity: (rotation: SIMD4<Double>, logScale: Double)?
    /// Band matrices of the rotation part, empty when they are all the identity.
    let shMatrices: [[Double]]
    let mirrored: Bool

    init?(_ instance: NodeInstances.Instance, range: Range<Int>, outStart: Int, shDegree: Int,
          label: String, warnings: inout [String]) {
        let g = instance.matrix
        a = Matrix3(rows: SIMD3(instance.element(0, 0), instance.element(0, 1), instance.element(0, 2)),
                    SIMD3(instance.element(1, 0), instance.element(1, 1), instance.element(1, 2)),
                    SIMD3(instance.element(2, 0), instance.element(2, 1), instance.element(2, 2)))
        t = SIMD3(instance.element(0, 3), instance.element(1, 3), instance.element(2, 3))
        let norms = SIMD3((a.column(0) * a.column(0)).sum().squareRoot(), (a.column(1) * a.column(1)).sum().squareRoot(),
                          (a.column(2) * a.column(2)).sum().squareRoot())
        guard g.allSatisfy(\.isFinite), (0..<3).allSatisfy({ norms[$0].isFinite && norms[$0] > 1e-12 }) else {
            warnings.append("\(label): node matrix has a zero or non-finite column; instance skipped")
            return nil
        }
        if instance.element(3, 0) != 0 || instance.element(3, 1) != 0 || instance.element(3, 2) != 0 || instance.element(3, 3) != 1 {
            warnings.append("\(label): node matrix has a projective last row; it is ignored")
        }
        self.range = range
        self.outStart = outStart
        let rn = Matrix3(rows: a.rows.0 / norms, a.rows.1 / norms, a.rows.2 / norms)
        let det = rn.determinant
        let gram = rn.transposed * rn
        var skew = 0.0
        for r in 0..<3 { for c in 0..<3 { skew = max(skew, abs(gram[r, c] - (r == c ? 1 : 0))) } }
        if skew > 1e-6 || abs(abs(det) - 1) > 1e-3 {
            warnings.append("\(label): node matrix is not decomposable into T·R·S (the extension leaves its rendering undefined); covariances transformed exactly, SH by its rotation part")
        }
        mirrored = det < 0
        if mirrored { warnings.append("\(label): node matrix mirrors (negative scale); applied as a mirror") }
        let sign: Double = mirrored ? -1 : 1
        let proper = Matrix3(rows: rn.rows.0 * sign, rn.rows.1 * sign, rn.rows.2 * sign)
        let rotation = skew > 1e-6 ? Self.nearestRotation(proper) : proper
        let uniform = skew < 1e-6 && norms.max() / norms.min() - 1 < 1e-6 && !mirrored
        similarity = uniform ? (rotation.quaternion, log(norms.sum() / 3)) : nil
        let matrices = SHRotation.bandMatrices(rotation, maxDegree: shDegree)
        shMatrices = SHRotation.isIdentity(matrices) && !mirrored ? [] : matrices
    }

    /// The rotation factor U of the polar decomposition m = U·P (P = (mᵀm)^½), for a matrix with shear.
    static func nearestRotation(_ m: Matrix3) -> Matrix3 {
        let (values, v) = (m.transposed * m).symmetricEigen()
        let inverseRoot = SIMD3(1 / values.x.squareRoot(), 1 / values.y.squareRoot(), 1 / values.z.squareRoot())
        let scaled = Matrix3(rows: v.rows.0 * inverseRoot, v.rows.1 * inverseRoot, v.rows.2 * inverseRoot)
        return m * (scaled * v.transposed)
    }

    /// Transforms splats `chunk` (offsets into `range`) of `source` into `out` at `outStart`.
    func apply(from source: SplatScene, to out: SplatScene, _ chunk: Range<Int>) {
        let columns = SplatScene.Column.allCases
        let src = columns.map { source.columnBase($0) }, dst = columns.map { out.columnBase($0) }
        let per = source.shFloatsPerSplat
        let srcSH = source.sh.baseAddress, dstSH = out.sh.baseAddress
        for offset in chunk {
            let i = range.lowerBound + offset, o = outStart + offset
            func value(_ c: SplatScene.Column) -> Double { Double(src[c.rawValue][i]) }
            func store(_ c: SplatScene.Column, _ v: Double) { dst[c.rawValue][o] = Float(v) }
            let p = a * SIMD3(value(.x), value(.y), value(.z)) + t
            store(.x, p.x); store(.y, p.y); store(.z, p.z)
            var q = SIMD4(value(.rotW), value(.rotX), value(.rotY), value(.rotZ))
            let length = (q * q).sum().squareRoot()
            q = length > 0 ? q / length : SIMD4(1, 0, 0, 0)
            let logScale = SIMD3(value(.logScaleX), value(.logScaleY), value(.logScaleZ))
            var newQ: SIMD4<Double>, newLog: SIMD3<Double>
            if let similarity {
                newQ = Self.hamilton(similarity.rotation, q)
                newLog = logScale + similarity.logScale
            } else {
                (newQ, newLog) = reshaped(q: q, logScale: logScale)
            }
            store(.rotW, newQ.x); store(.rotX, newQ.y); store(.rotY, newQ.z); store(.rotZ, newQ.w)
            store(.logScaleX, newLog.x); store(.logScaleY, newLog.y); store(.logScaleZ, newLog.z)
            // Opacity and the view-independent colour do not change.
            for c in SplatScene.Column.alpha.rawValue...SplatScene.Column.dcB.rawValue { dst[c][o] = src[c][i] }
            guard per > 0, let srcSH, let dstSH else { continue }
            let from = srcSH + i * per, to = dstSH + o * per
            guard !shMatrices.isEmpty else {
                to.update(from: from, count: per)
                continue
            }
            for (band, d) in shMatrices.enumerated() {
                let l = band + 1, n = 2 * l + 1, lo = l * l - 1
                let sign: Double = mirrored && l % 2 == 1 ? -1 : 1
                for channel in 0..<3 {
                    for r in 0..<n {
                        var acc = 0.0
                        for c in 0..<n { acc += d[r * n + c] * Double(from[3 * (lo + c) + channel]) }
                        to[3 * (lo + r) + channel] = Float(sign * acc)
                    }
                }
            }
        }
    }

    /// The axes and extents of A·Σ·Aᵀ: eigenvectors as a proper rotation, ½·ln of eigenvalues.
    private func reshaped(q: SIMD4<Double>, logScale: SIMD3<Double>) -> (SIMD4<Double>, SIMD3<Double>) {
        let r = Matrix3(quaternion: q)
        let variance = SIMD3(exp(2 * logScale.x), exp(2 * logScale.y), exp(2 * logScale.z))
        let scaled = Matrix3(rows: r.rows.0 * variance, r.rows.1 * variance, r.rows.2 * variance)
        let covariance = a * (scaled * r.transposed) * a.transposed
        var (values, vectors) = covariance.symmetricEigen()
        if vectors.determinant < 0 {
            for row in 0..<3 { vectors[row, 2] = -vectors[row, 2] }
        }
        func half(_ v: Double) -> Double { v > 0 ? 0.5 * log(v) : -.infinity }
        return (vectors.quaternion, SIMD3(half(values.x), half(values.y), half(values.z)))
    }

    /// The Hamilton product a ⊗ b of quaternions stored (w, x, y, z): rotation b, then a.
    static func hamilton(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
        SIMD4(a.x * b.x - a.y * b.y - a.z * b.z - a.w * b.w,
              a.x * b.y + a.y * b.x + a.z * b.w - a.w * b.z,
              a.x * b.z - a.y * b.w + a.z * b.x + a.w * b.y,
              a.x * b.w + a.y * b.z - a.z * b.y + a.w * b.x)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
