import Foundation
import SplatCore
import Testing

/// Node flattening (formats-gltf.md 12.6): positions, covariances A·Σ·Aᵀ, rotation plus uniform
/// scale exactly, other matrices through the eigen-decomposition, SH turned with the rotation
/// (checked by evaluating the lighting in turned directions), mirrors, skipped instances, and
/// the mesh ranges a compaction moves.
@Suite struct SceneTransformTests {
    /// A column-major 4×4 from a 3×3 (rows) and a translation.
    static func matrix(_ a: Matrix3, _ t: SIMD3<Double>) -> [Double] {
        var m = [Double](repeating: 0, count: 16)
        for c in 0..<3 { for r in 0..<3 { m[4 * c + r] = a[r, c] } }
        m[12] = t.x; m[13] = t.y; m[14] = t.z; m[15] = 1
        return m
    }

    /// Deterministic pseudo-random numbers in [−1, 1).
    struct Numbers {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 52) - 1
        }
    }

    static func scene(count: Int, degree: Int, seed: UInt64) -> SplatScene {
        var rng = Numbers(state: seed)
        let s = SplatScene(count: count, shDegree: degree)
        for i in 0..<count {
            s.x[i] = Float(rng.next() * 5); s.y[i] = Float(rng.next() * 5); s.z[i] = Float(rng.next() * 5)
            var q = SIMD4(rng.next(), rng.next(), rng.next(), rng.next())
            q /= (q * q).sum().squareRoot()
            s.rotW[i] = Float(q.x); s.rotX[i] = Float(q.y); s.rotY[i] = Float(q.z); s.rotZ[i] = Float(q.w)
            s.logScaleX[i] = Float(rng.next() - 1); s.logScaleY[i] = Float(rng.next() - 2); s.logScaleZ[i] = Float(rng.next())
            s.alpha[i] = Float(0.5 + 0.4 * rng.next())
            s.dcR[i] = Float(rng.next()); s.dcG[i] = Float(rng.next()); s.dcB[i] = Float(rng.next())
        }
        for j in 0..<s.sh.count { s.sh[j] = Float(rng.next()) }
        return s
    }

    static func covariance(_ s: SplatScene, _ i: Int) -> Matrix3 {
        let r = Matrix3(quaternion: SIMD4(Double(s.rotW[i]), Double(s.rotX[i]), Double(s.rotY[i]), Double(s.rotZ[i])))
        let v = SIMD3(exp(2 * Double(s.logScaleX[i])), exp(2 * Double(s.logScaleY[i])), exp(2 * Double(s.logScaleZ[i])))
        return Matrix3(rows: r.rows.0 * v, r.rows.1 * v, r.rows.2 * v) * r.transposed
    }

    /// View-dependent colour of splat i in direction d (SH bands only).
    static func lighting(_ s: SplatScene, _ i: Int, _ d: SIMD3<Double>) -> SIMD3<Double> {
        let sh = (0..<s.shCoefficientsPerChannel).map { SIMD3<Double>(s.shCoefficient(i, $0)) }
        return SphericalHarmonics.evaluate(dc: .zero, sh: sh, direction: d)
    }

    /// Checks positions, covariances and SH of `flat` against `source` moved by `a`, `t`.
    static func expectTransformed(_ source: SplatScene, _ flat: SplatScene, _ a: Matrix3, _ t: SIMD3<Double>) {
        var rng = Numbers(state: 7)
        var rotation = Matrix3(rows: a.rows.0, a.rows.1, a.rows.2)
        let norms = SIMD3((0..<3).map { (a.column($0) * a.column($0)).sum().squareRoot() })
        rotation = Matrix3(rows: rotation.rows.0 / norms, rotation.rows.1 / norms, rotation.rows.2 / norms)
        for i in 0..<source.count {
            let p = a * SIMD3<Double>(source.position(i)) + t
            #expect(abs(Double(flat.x[i]) - p.x) < 1e-4 && abs(Double(flat.y[i]) - p.y) < 1e-4 && abs(Double(flat.z[i]) - p.z) < 1e-4)
            let want = a * covariance(source, i) * a.transposed
            let got = covariance(flat, i)
            var worst = 0.0, size = 0.0
            for r in 0..<3 { for c in 0..<3 { worst = max(worst, abs(got[r, c] - want[r, c])); size = max(size, abs(want[r, c])) } }
            #expect(worst <= 1e-5 * size, "splat \(i): covariance off by \(worst) of \(size)")
            let q = flat.rotation(i)
            #expect(abs((q * q).sum() - 1) < 1e-5)
            #expect(flat.alpha[i] == source.alpha[i] && flat.dc(i) == source.dc(i))
            // The lighting seen from world direction A·d (normalized) equals the source's from d.
            for _ in 0..<4 {
                var d = SIMD3(rng.next(), rng.next(), rng.next())
                d /= (d * d).sum().squareRoot()
                let world = rotation * d
                let before = lighting(source, i, d), after = lighting(flat, i, world)
                #expect(((before - after) * (before - after)).sum().squareRoot() < 1e-4, "splat \(i): SH \(before) vs \(after)")
            }
        }
    }

    static func instanced(_ s: SplatScene, _ matrix: [Double]) -> SplatScene {
        s.nodeInstances = NodeInstances(meshSplats: [0..<s.count], instances: [.init(node: 0, mesh: 0, matrix: matrix)])
        return s
    }

    @Test(arguments: [0, 1, 2, 3, 4])
    func rotationAndUniformScaleAreExact(_ degree: Int) throws {
        var q = SIMD4(0.3, -0.5, 0.7, 0.2)
        q /= (q * q).sum().squareRoot()
        let r = Matrix3(quaternion: q)
        let a = Matrix3(rows: r.rows.0 * 2.5, r.rows.1 * 2.5, r.rows.2 * 2.5)
        let t = SIMD3(1.0, -2.0, 3.5)
        let source = Self.scene(count: 40, degree: degree, seed: UInt64(degree + 1))
        let copy = Self.scene(count: 40, degree: degree, seed: UInt64(degree + 1))
        let flat = try SceneTransform.flatten(Self.instanced(copy, Self.matrix(a, t)), threads: 1)
        #expect(flat.count == 40 && flat.nodeInstances == nil)
        Self.expectTransformed(source, flat, a, t)
        // Uniform scale shifts every log-scale by ln 2.5 and keeps the axes.
        for i in 0..<40 { #expect(abs(Double(flat.logScaleX[i] - source.logScaleX[i]) - log(2.5)) < 1e-5) }
    }

    @Test func nonUniformScaleShearAndMirror() throws {
        let cases: [Matrix3] = [
            Matrix3(rows: SIMD3(2, 0, 0), SIMD3(0, 0.5, 0), SIMD3(0, 0, 1)),
            Matrix3(rows: SIMD3(1, 0.4, 0), SIMD3(0, 1, 0.2), SIMD3(0, 0, 1.5)),
            Matrix3(rows: SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)),
        ]
        for (k, a) in cases.enumerated() {
            let source = Self.scene(count: 30, degree: 3, seed: 11)
            let flat = try SceneTransform.flatten(Self.instanced(Self.scene(count: 30, degree: 3, seed: 11), Self.matrix(a, .zero)))
            if k == 1 {
                // Shear: SH turn with the nearest rotation, which is not `a`'s normalized columns; check geometry only.
                for i in 0..<30 {
                    let want = a * Self.covariance(source, i) * a.transposed, got = Self.covariance(flat, i)
                    for r in 0..<3 { for c in 0..<3 { #expect(abs(got[r, c] - want[r, c]) < 1e-5 * 50) } }
                }
                #expect(flat.warnings.contains { $0.contains("not decomposable") })
                continue
            }
            if k == 2 { #expect(flat.warnings.contains { $0.contains("mirrors") }) }
            // Mirrors included: the (−1)^l band signs make the lighting seen from A·d the source's from d.
            Self.expectTransformed(source, flat, a, .zero)
        }
    }

    @Test func identityAndSkippedInstances() throws {
        let s = Self.scene(count: 10, degree: 1, seed: 3)
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        s.nodeInstances = NodeInstances(meshSplats: [0..<10], instances: [.init(node: 0, mesh: 0, matrix: identity)])
        #expect(try SceneTransform.flatten(s) === s)
        #expect(s.nodeInstances == nil)
        // A zero column skips the instance; a mesh drawn twice is copied twice.
        var zero = identity
        zero[0] = 0
        var moved = identity
        moved[12] = 5
        s.nodeInstances = NodeInstances(meshSplats: [0..<4, 4..<10], instances: [
            .init(node: 0, mesh: 0, matrix: zero), .init(node: 1, mesh: 1, matrix: identity), .init(node: 2, mesh: 1, matrix: moved),
        ])
        let flat = try SceneTransform.flatten(s)
        #expect(flat.count == 12)
        #expect(flat.warnings.contains { $0.contains("instance skipped") })
        #expect(flat.x[0] == s.x[4] && flat.x[6] == s.x[4] + 5)
    }

    @Test func instancedSizeIsCheckedBeforeAllocating() throws {
        let s = Self.scene(count: 100, degree: 0, seed: 5)
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        s.nodeInstances = NodeInstances(meshSplats: [0..<100], instances: Array(repeating: .init(node: 0, mesh: 0, matrix: identity), count: 1000))
        #expect(throws: SplatError.self) { try SceneTransform.flatten(s, limits: DecodeLimits(maxDecodedBytes: 1 << 20)) }
        do throws(SplatError) { _ = try SceneTransform.flatten(s, limits: DecodeLimits(maxDecodedBytes: 1 << 20)) } catch {
            #expect(error.kind == .tooLarge)
        }
    }

    @Test func compactionMovesMeshRanges() throws {
        let s = Self.scene(count: 10, degree: 0, seed: 9)
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        s.nodeInstances = NodeInstances(meshSplats: [0..<3, 3..<3, 3..<10], instances: [.init(node: 0, mesh: 2, matrix: identity)])
        s.compact { $0 != 1 && $0 != 5 && $0 != 6 }
        #expect(s.nodeInstances?.meshSplats == [0..<2, 2..<2, 2..<7])
    }

    @Test func bandMatricesOfAxisTurnsAreSignedPermutations() {
        // R_y(90°): the band-1 basis (−y, z, −x) maps (c₀, c₁, c₂) to (c₀, c₂, −c₁) (formats-gltf.md 12.6).
        let r = Matrix3(rows: SIMD3(0, 0, 1), SIMD3(0, 1, 0), SIMD3(-1, 0, 0))
        let d = SHRotation.bandMatrices(r, maxDegree: 1)[0]
        let c = [1.0, 2.0, 3.0]
        let turned = (0..<3).map { row in (0..<3).reduce(0.0) { $0 + d[row * 3 + $1] * c[$1] } }
        #expect(turned == [1, 3, -2])
    }
}
