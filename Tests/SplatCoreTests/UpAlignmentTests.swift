import Foundation
import SplatCore
import TestSupport
import Testing

/// Signed axes, the up → frame rule, and whole-scene rotations.
@Suite struct UpAlignmentTests {
    @Test func signedAxisParsesAndSnaps() {
        #expect(SignedAxis(name: "+y") == .plusY)
        #expect(SignedAxis(name: "z") == .plusZ)
        #expect(SignedAxis(name: "-X") == .minusX)
        #expect(SignedAxis(name: "\u{2212}z") == .minusZ)
        #expect(SignedAxis(name: "+w") == nil)
        #expect(SignedAxis(name: "++y") == nil)
        #expect(SignedAxis.nearest(to: SIMD3(0.2, -0.9, 0.3)) == .minusY)
        #expect(SignedAxis.nearest(to: SIMD3(0.5, 0.5, 0)) == .plusX)
        #expect(SignedAxis.nearest(to: .zero) == nil)
        #expect(SignedAxis.nearest(to: SIMD3(.nan, 1, 0)) == nil)
        for axis in SignedAxis.allCases {
            #expect(axis.negated.vector == -axis.vector)
            #expect(SignedAxis(name: axis.rawValue) == axis)
        }
    }

    @Test func everyNamedFrameHasItsUpLetterOnOneAxis() {
        #expect(CoordinateSystem.rub.upAxis == .plusY)
        #expect(CoordinateSystem.rdf.upAxis == .minusY)
        #expect(CoordinateSystem.rfu.upAxis == .plusZ)
        #expect(CoordinateSystem.lbd.upAxis == .minusZ)
        for frame in CoordinateSystem.allCases {
            let letter = Array(frame.name)[frame.upAxis.index]
            #expect(letter == (frame.upAxis.sign > 0 ? "U" : "D"), "\(frame.name)")
        }
    }

    /// For every convention and every axis: the stored → render change puts that axis at render
    /// +Y, never mirrors beyond what the convention itself does, moves only the two axes involved
    /// (the third keeps its render direction) and, where a named frame exists, is exactly that
    /// frame's conversion.
    @Test(arguments: CoordinateSystem.allCases)
    func upAlignmentIsTheSmallestProperTurn(_ convention: CoordinateSystem) throws {
        let base = FrameConversion(from: convention, to: .rub)
        for up in SignedAxis.allCases {
            let correction = UpAlignment.correction(forUp: up, convention: convention)
            #expect(abs(determinant(correction.rows) - 1) < 1e-12)
            let m = UpAlignment.storedToRender(forUp: up, convention: convention)
            #expect(apply(m, up.vector) == SIMD3(0, 1, 0), "\(convention.name) \(up.rawValue)")
            #expect(determinant(m) == Double(base.determinant))
            // Only the two axes involved move: the render axis perpendicular to both the converted
            // up and +Y stays put (render X for the half turn, as `--flip` does).
            let convertedUp = apply(base.rows.map(double), up.vector)
            let c = SIMD3(-convertedUp.z, 0, convertedUp.x) // convertedUp × +Y
            let fixed = (c * c).sum() > 0 ? c : SIMD3<Double>(1, 0, 0)
            #expect(maxDifference([correction.apply(point: fixed).array], [fixed.array]) < 1e-12, "\(convention.name) \(up.rawValue)")
            let named = CoordinateSystem.frame(forUp: up, convention: convention)
            if up.index == 0 {
                #expect(named == nil, "no named frame has X up")
            } else {
                let frame = try #require(named, "\(convention.name) \(up.rawValue)")
                #expect(frame.upAxis == up)
                #expect(frame.isRightHanded == convention.isRightHanded)
                #expect(FrameConversion(from: frame, to: .rub).rows.map(double) == m)
            }
        }
    }

    @Test func namedFramesForTheIssuesCases() {
        // A Z-up PLY (drone data) keeps x right; an SPZ written raw as RDF is RDF.
        #expect(CoordinateSystem.frame(forUp: .plusZ, convention: .rdf) == .rfu)
        #expect(CoordinateSystem.frame(forUp: .minusY, convention: .rub) == .rdf)
        #expect(CoordinateSystem.frame(forUp: .plusY, convention: .rdf) == .rub)
        #expect(CoordinateSystem.frame(forUp: .minusY, convention: .rdf) == .rdf)
        #expect(CoordinateSystem.frame(forUp: .plusZ, convention: .rub) == .rfu)
        #expect(CoordinateSystem.frame(forUp: .plusX, convention: .rdf) == nil)
        // Up on +X from RDF: a quarter turn about render Z, so stored +X lands on render +Y.
        let m = UpAlignment.storedToRender(forUp: .plusX, convention: .rdf)
        #expect(m == [SIMD3(0, 1, 0), SIMD3(1, 0, 0), SIMD3(0, 0, -1)])
    }

    /// A rotation of a scene equals its frame conversion where both apply: same positions, same
    /// covariances, same SH colour in every direction.
    @Test func sceneRotationMatchesFrameConversionOnProperPermutations() throws {
        for from in CoordinateSystem.allCases where from.isRightHanded {
            let conversion = FrameConversion(from: from, to: .rub)
            let rotation = try #require(SceneRotation(conversion))
            let a = sampleScene(), b = sampleScene()
            conversion.apply(to: a)
            rotation.apply(to: b)
            #expect(maxDifference(splatCovariance(a), splatCovariance(b)) < 1e-5)
            #expect(abs(a.x[0] - b.x[0]) < 1e-6 && abs(a.y[0] - b.y[0]) < 1e-6 && abs(a.z[0] - b.z[0]) < 1e-6)
            for k in 0..<a.sh.count { #expect(abs(a.sh[k] - b.sh[k]) < 1e-5, "\(from.name) sh \(k)") }
        }
    }

    /// An arbitrary rotation: covariance becomes R Σ Rᵀ, and the colour seen along R·d after the
    /// rotation is the colour seen along d before it, for all four SH bands.
    @Test func arbitrarySceneRotationRotatesCovarianceAndSH() {
        let rotation = SceneRotation(axis: SIMD3(0.3, -0.5, 0.8), angle: 1.1)
        let before = sampleScene(), after = sampleScene()
        rotation.apply(to: after)
        let r = rotation.rows
        let s = splatCovariance(before)
        var expected = [[Double]](repeating: [0, 0, 0], count: 3)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { for l in 0..<3 { expected[i][j] += r[i][k] * s[k][l] * r[j][l] } } } }
        #expect(maxDifference(splatCovariance(after), expected) < 1e-5)
        let p = rotation.apply(point: SIMD3(Double(before.x[0]), Double(before.y[0]), Double(before.z[0])))
        #expect(abs(Double(after.x[0]) - p.x) < 1e-5 && abs(Double(after.z[0]) - p.z) < 1e-5)
        for d in [SIMD3<Double>(0, 0, 1), SIMD3(0.6, 0.8, 0), SIMD3(-0.48, 0.6, 0.64)] {
            let c0 = colour(before, d), c1 = colour(after, rotation.apply(point: d))
            #expect(((c0 - c1) * (c0 - c1)).sum().squareRoot() < 1e-5)
        }
        #expect(SceneRotation(rows: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, -1)]) == nil, "a mirror is not a rotation")
        let q = rotation.quaternion
        #expect(maxDifference(SceneRotation(quaternion: q).rows.map { [$0.x, $0.y, $0.z] }, r.map { [$0.x, $0.y, $0.z] }) < 1e-12)
        #expect(maxDifference(rotation.followed(by: rotation.inverse).rows.map { [$0.x, $0.y, $0.z] },
                              SceneRotation.identity.rows.map { [$0.x, $0.y, $0.z] }) < 1e-12)
    }

    @Test func aligningTakesTheShortWayAndHalfTurnsAboutX() {
        let quarter = SceneRotation.aligning(SIMD3(0, 0, 1), onto: SIMD3(0, 1, 0))
        #expect(maxDifference([quarter.apply(point: SIMD3(1, 0, 0)).array], [[1, 0, 0]]) < 1e-12)
        let half = SceneRotation.aligning(SIMD3(0, -1, 0), onto: SIMD3(0, 1, 0))
        #expect(maxDifference(half.rows.map(\.array), [[1, 0, 0], [0, -1, 0], [0, 0, -1]]) < 1e-12)
        let general = SceneRotation.aligning(SIMD3(1, 2, 3), onto: SIMD3(-2, 0.5, 1))
        let moved = general.apply(point: SIMD3(1, 2, 3) / 14.0.squareRoot())
        #expect(maxDifference([moved.array], [(SIMD3(-2, 0.5, 1) / 5.25.squareRoot()).array]) < 1e-12)
    }

    @Test func trainingCameraConvertsWithTheScene() {
        let camera = TrainingCamera(id: 3, name: "frame_003.png", width: 640, height: 480, position: SIMD3(1, 2, 3),
                                    rotation: [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)], fx: 500, fy: 500)
        let converted = camera.converted(by: FrameConversion(from: .rdf, to: .rub))
        #expect(converted.position == SIMD3(1, -2, -3))
        #expect(converted.down == SIMD3(0, -1, 0) && converted.up == SIMD3(0, 1, 0))
        #expect(converted.forward == SIMD3(0, 0, -1) && converted.right == SIMD3(1, 0, 0))
        #expect(abs(camera.verticalFOVDegrees - 2 * atan(240.0 / 500) * 180 / .pi) < 1e-12)
        let turned = camera.rotated(by: SceneRotation(axis: SIMD3(0, 0, 1), angle: .pi / 2))
        #expect(maxDifference([turned.right.array, turned.position.array], [[0, 1, 0], [-2, 1, 3]]) < 1e-12)
    }
}

private func double(_ v: SIMD3<Float>) -> SIMD3<Double> { SIMD3(Double(v.x), Double(v.y), Double(v.z)) }
private func apply(_ m: [SIMD3<Double>], _ v: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3((m[0] * v).sum(), (m[1] * v).sum(), (m[2] * v).sum())
}
private func determinant(_ m: [SIMD3<Double>]) -> Double {
    let c = SIMD3(m[1].y * m[2].z - m[1].z * m[2].y, m[1].z * m[2].x - m[1].x * m[2].z, m[1].x * m[2].y - m[1].y * m[2].x)
    return (m[0] * c).sum()
}
private func maxDifference(_ a: [[Double]], _ b: [[Double]]) -> Double {
    zip(a, b).map { zip($0, $1).map { abs($0 - $1) }.max()! }.max()!
}
private extension SIMD3 where Scalar == Double {
    var array: [Double] { [x, y, z] }
}

/// One splat with degree-4 SH and a generic rotation.
private func sampleScene() -> SplatScene {
    let s = SplatScene(count: 1, shDegree: 4)
    s.x[0] = 0.7; s.y[0] = -1.3; s.z[0] = 2.1
    s.logScaleX[0] = -1.2; s.logScaleY[0] = -0.4; s.logScaleZ[0] = -2.0
    let q = SIMD4<Float>(0.8, 0.3, -0.4, 0.2) / (SIMD4<Float>(0.8, 0.3, -0.4, 0.2) * SIMD4<Float>(0.8, 0.3, -0.4, 0.2)).sum().squareRoot()
    s.rotW[0] = q.x; s.rotX[0] = q.y; s.rotY[0] = q.z; s.rotZ[0] = q.w
    s.alpha[0] = 0.7; s.dcR[0] = 0.3; s.dcG[0] = -0.2; s.dcB[0] = 0.5
    for j in 0..<s.sh.count { s.sh[j] = Float(j % 7) * 0.05 - 0.15 + Float(j) * 0.001 }
    return s
}

private func colour(_ s: SplatScene, _ d: SIMD3<Double>) -> SIMD3<Double> {
    let sh = (0..<s.shCoefficientsPerChannel).map { k -> SIMD3<Double> in
        let c = s.shCoefficient(0, k)
        return SIMD3(Double(c.x), Double(c.y), Double(c.z))
    }
    return SphericalHarmonics.evaluate(dc: SIMD3(Double(s.dcR[0]), Double(s.dcG[0]), Double(s.dcB[0])), sh: sh, direction: d)
}
