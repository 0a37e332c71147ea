import Foundation
import SplatCore
@testable import SplatRender
import Testing
import TestSupport

/// Each evidence source of the up estimator on synthetic scenes built with +Y up, and the
/// combination's behaviour: confident where the scene says where up is, not where it cannot.
@Suite struct UpEvidenceTests {
    /// A disc (flat splat) at `p` facing `normal`.
    static func disc(_ p: SIMD3<Float>, normal: SIMD3<Double>, size: Float = 0.08, alpha: Float = 0.9) -> TestScenes.Splat {
        let q = SceneRotation.aligning(SIMD3(0, 0, 1), onto: normal).quaternion
        return .init(position: p, logScale: SIMD3(log(size), log(size), log(size / 50)),
                     rotation: SIMD4(Float(q.x), Float(q.y), Float(q.z), Float(q.w)), alpha: alpha)
    }

    static func blob(_ p: SIMD3<Float>, size: Float = 0.03) -> TestScenes.Splat {
        .init(position: p, logScale: SIMD3(repeating: log(size)), alpha: 0.9)
    }

    /// A 4 × 4 ground of discs at y = 0 with a 0.6 m box standing on it (its five visible faces
    /// covered with discs).
    static func groundWithBox() -> SplatScene {
        var random = SplitMix64(seed: 16)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 }
        var splats: [TestScenes.Splat] = []
        for _ in 0..<4000 {
            splats.append(disc(SIMD3(4 * u() - 2, 0.004 * (u() - 0.5), 4 * u() - 2), normal: SIMD3(0, 1, 0)))
        }
        for _ in 0..<2500 {
            let a = 0.6 * u() - 0.3, b = 0.6 * u() + 0.02
            switch random.next() % 5 {
            case 0: splats.append(disc(SIMD3(0.3, b, a), normal: SIMD3(1, 0, 0), size: 0.03))
            case 1: splats.append(disc(SIMD3(-0.3, b, a), normal: SIMD3(-1, 0, 0), size: 0.03))
            case 2: splats.append(disc(SIMD3(a, b, 0.3), normal: SIMD3(0, 0, 1), size: 0.03))
            case 3: splats.append(disc(SIMD3(a, b, -0.3), normal: SIMD3(0, 0, -1), size: 0.03))
            default: splats.append(disc(SIMD3(a, 0.62, 0.6 * u() - 0.3), normal: SIMD3(0, 1, 0), size: 0.03))
            }
        }
        return TestScenes.scene(splats)
    }

    /// A solid cone 2 m tall, 0.5 m in radius at its base, floating (no ground): a standing
    /// subject broad at the bottom.
    static func floatingCone(taper: Bool = true) -> SplatScene {
        var random = SplitMix64(seed: 5)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 }
        var splats: [TestScenes.Splat] = []
        while splats.count < 5000 {
            let h = 2 * u(), radius: Float = taper ? 0.5 * (1 - h / 2.1) : 0.3
            let x = 2 * u() - 1, z = 2 * u() - 1
            guard x * x + z * z <= 1 else { continue }
            splats.append(blob(SIMD3(radius * x, h, radius * z)))
        }
        return TestScenes.scene(splats)
    }

    /// Two 4 × 4 layers of discs, a floor at y = 0 and a ceiling at y = 2.5, nothing between.
    static func floorAndCeiling() -> SplatScene {
        var random = SplitMix64(seed: 7)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 }
        var splats: [TestScenes.Splat] = []
        for i in 0..<6000 {
            splats.append(disc(SIMD3(4 * u() - 2, (i % 2 == 0 ? 0 : 2.5) + 0.004 * (u() - 0.5), 4 * u() - 2), normal: SIMD3(0, 1, 0)))
        }
        return TestScenes.scene(splats)
    }

    /// A 16 m street of discs, 4.4 m wide at one end and 1.5 m at the other, with eight 1.4 m
    /// boxes (cars) along it: a long scene lying on its floor, whose long axis tapers.
    static func street() -> SplatScene {
        var random = SplitMix64(seed: 21)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 }
        var splats: [TestScenes.Splat] = []
        for _ in 0..<4000 {
            let x = 16 * u() - 8, half = 2.2 - 0.09 * (x + 8)
            splats.append(disc(SIMD3(x, 0.004 * (u() - 0.5), (2 * u() - 1) * half), normal: SIMD3(0, 1, 0)))
        }
        for car in 0..<8 {
            let x = -7 + 2 * Float(car), z: Float = car % 2 == 0 ? 0.8 : -0.8
            for _ in 0..<400 {
                let a = u(), b = u()
                switch random.next() % 5 {
                case 0: splats.append(disc(SIMD3(x + 0.9, 1.4 * b, z + 0.4 * (a - 0.5)), normal: SIMD3(1, 0, 0), size: 0.03))
                case 1: splats.append(disc(SIMD3(x - 0.9, 1.4 * b, z + 0.4 * (a - 0.5)), normal: SIMD3(-1, 0, 0), size: 0.03))
                case 2: splats.append(disc(SIMD3(x + 1.8 * (a - 0.5), 1.4 * b, z + 0.2), normal: SIMD3(0, 0, 1), size: 0.03))
                case 3: splats.append(disc(SIMD3(x + 1.8 * (a - 0.5), 1.4 * b, z - 0.2), normal: SIMD3(0, 0, -1), size: 0.03))
                default: splats.append(disc(SIMD3(x + 1.8 * (a - 0.5), 1.4, z + 0.4 * (b - 0.5)), normal: SIMD3(0, 1, 0), size: 0.03))
                }
            }
        }
        return TestScenes.scene(splats)
    }

    static func floatingSphere() -> SplatScene {
        var random = SplitMix64(seed: 3)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 * 2 - 1 }
        var splats: [TestScenes.Splat] = []
        while splats.count < 5000 {
            let p = SIMD3(u(), u(), u())
            if (p * p).sum() <= 1 { splats.append(blob(p)) }
        }
        return TestScenes.scene(splats)
    }

    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { UpEvaluationTally.degrees(a, b) }
    static let up = SIMD3<Double>(0, 1, 0)

    @Test func groundPlaneFindsTheFloorUnderTheBox() throws {
        let sample = OrientationSample(Self.groundWithBox())
        let ground = try #require(GroundPlane.find(sample))
        #expect(Self.degrees(ground.up, Self.up) < 1, "the floor's normal, turned towards the box")
        #expect(abs(ground.offset) < 0.01)
        #expect(ground.support > 0.5 && ground.oneSidedness > 0.95)
        #expect(ground.gap < 0.1, "air above the floor")
        #expect(ground.farLayer < 0.5, "the box top is small beside the floor")
        #expect(ground.normalAgreement > 0.6)
    }

    @Test func surfaceNormalsClusterOnTheFloorsNormal() throws {
        let normals = SurfaceNormalMode(OrientationSample(Self.groundWithBox()))
        let direction = try #require(normals.direction)
        #expect(abs((direction * Self.up).sum()) > cos(1 * Double.pi / 180))
        #expect(normals.fraction > 0.6)
        // A scene of round splats has no surface normals at all.
        #expect(SurfaceNormalMode(OrientationSample(Self.floatingSphere())).direction == nil)
    }

    @Test func shapeAndTaperOfAFloatingTallObject() {
        let sample = OrientationSample(Self.floatingCone())
        let shape = MassShape(sample)
        #expect(abs((shape.tallLine * Self.up).sum()) > cos(2 * Double.pi / 180))
        #expect(shape.elongation > 0.5)
        #expect(shape.flatness == 0)
        #expect(MassProfile.taper(sample, along: Self.up) > 0.5, "narrow end up")
        #expect(MassProfile.taper(sample, along: -Self.up) < -0.5)
        // A cylinder has no narrow end.
        #expect(abs(MassProfile.taper(OrientationSample(Self.floatingCone(taper: false)), along: Self.up)) < 0.05)
    }

    @Test func bottomLayerSaysWhichEndIsTheFloor() {
        // A cone standing on the ground thins out upwards.
        let ground = Self.groundWithBox(), cone = Self.floatingCone()
        let scene = SplatScene(count: 4000 + cone.count, shDegree: 0)
        for column in SplatScene.Column.allCases {
            scene.columnBase(column).update(from: ground.columnBase(column), count: 4000)
            (scene.columnBase(column) + 4000).update(from: cone.columnBase(column), count: cone.count)
        }
        let sample = OrientationSample(scene)
        #expect(MassProfile.bottomLayer(sample, along: Self.up) > 0.5)
        #expect(MassProfile.bottomLayer(sample, along: -Self.up) < -0.5)
        // Both ends are layers: the box's lid, the ceiling.
        #expect(MassProfile.bottomLayer(OrientationSample(Self.groundWithBox()), along: Self.up) == 0)
        #expect(MassProfile.bottomLayer(OrientationSample(Self.floorAndCeiling()), along: Self.up) == 0)
    }

    @Test func flatExtentAndTheOutlineGate() {
        let sample = OrientationSample(Self.groundWithBox())
        let shape = MassShape(sample)
        #expect(abs((shape.flatLine * Self.up).sum()) > cos(2 * Double.pi / 180))
        #expect(shape.flatness > 0.5)
        #expect(shape.outlineGate(sample, along: shape.flatLine) == 1, "a square patch is trusted")
        // The same flat layer cut to a 4 × 1 strip: a sign or a board, not a ground.
        var random = SplitMix64(seed: 2)
        func u() -> Float { Float(random.next() % 1_000_001) / 1_000_000 }
        let strip = TestScenes.scene((0..<3000).map { _ in Self.disc(SIMD3(4 * u() - 2, 0.05 * u(), u() - 0.5), normal: Self.up) })
        let stripSample = OrientationSample(strip)
        #expect(MassShape(stripSample).outlineGate(stripSample, along: Self.up) == 0)
    }

    @Test func groundWithABoxIsConfidentlyUpInEveryOrientation() {
        let scene = Self.groundWithBox()
        for rotation in UpEvaluationCorpus.axisRotations {
            let rotated = UpEvaluationCorpus.copy(scene)
            rotation.apply(to: rotated)
            let estimate = UpEstimator.estimate(rotated)
            let truth = rotation.apply(point: Self.up)
            #expect(estimate.isConfident)
            #expect(estimate.axis == SignedAxis.nearest(to: truth))
            #expect(Self.degrees(estimate.vector, truth) < 1)
        }
        let turned = SceneRotation(axis: SIMD3(1, 2, -0.5), angle: 0.7)
        let rotated = UpEvaluationCorpus.copy(scene)
        turned.apply(to: rotated)
        #expect(Self.degrees(UpEstimator.estimate(rotated).vector, turned.apply(point: Self.up)) < 1)
    }

    @Test func aFloatingTallObjectStandsOnItsBroadEnd() {
        let estimate = UpEstimator.estimate(Self.floatingCone())
        #expect(estimate.isConfident)
        #expect(estimate.axis == .plusY)
        #expect(estimate.evidence.contains { $0.source == .taper && $0.agrees && $0.weight > 0.5 })
        let cylinder = UpEstimator.estimate(Self.floatingCone(taper: false))
        #expect(!cylinder.isConfident, "a cylinder is as likely to stand on either end")
        #expect(abs((cylinder.vector * Self.up).sum()) > 0.99, "…but it is still vertical")
    }

    /// The street's long axis is its longest by far and tapers, which reads as a tall subject
    /// standing on its broad end; the floor along it says the axis is level. Without that rule
    /// the long axis won (weight 1 against 0.2 for the oblong floor).
    @Test func aLongSceneWithAFloorAlongItLies() {
        let scene = Self.street()
        let unrotated = UpEstimator.estimate(scene)
        #expect(unrotated.evidence.contains { $0.source == .tallExtent && $0.weight == 0 }, "the long axis is silenced")
        for rotation in UpEvaluationCorpus.axisRotations {
            let rotated = UpEvaluationCorpus.copy(scene)
            rotation.apply(to: rotated)
            let estimate = UpEstimator.estimate(rotated)
            let truth = rotation.apply(point: Self.up)
            #expect(abs((estimate.vector * truth).sum()) > cos(2 * Double.pi / 180), "the floor's normal is the line")
            #expect(!estimate.isConfident || estimate.axis == SignedAxis.nearest(to: truth), "never confidently on its end")
        }
    }

    @Test func aFloorAndACeilingGiveTheLineButNoSign() {
        let estimate = UpEstimator.estimate(Self.floorAndCeiling())
        #expect(abs((estimate.vector * Self.up).sum()) > cos(1 * Double.pi / 180))
        #expect(!estimate.isConfident, "confidence \(estimate.confidence)")
    }

    @Test func aFloatingSphereHasNoUp() {
        let scene = Self.floatingSphere()
        scene.conventionalFrame = .rdf
        let estimate = UpEstimator.estimate(scene)
        #expect(estimate.confidence == 0)
        #expect(estimate.axis == .minusY, "without evidence, the frame's own up")
    }

    @Test func trainingCamerasOutvoteTheGeometry() {
        // Cameras held upside down relative to the scene's floor: they win, confidently.
        let estimate = UpEstimator.estimate(Self.groundWithBox(), hints: UpHints(cameraUps: [SIMD3(0.1, -1, 0), SIMD3(-0.1, -1, 0.05)]))
        #expect(estimate.axis == .minusY && estimate.isConfident)
        #expect(Self.degrees(estimate.vector, SIMD3(0, -1, 0.025)) < 0.5, "the cameras' mean up")
        #expect(estimate.evidence.contains { $0.source == .groundPlane && $0.role == .sign && !$0.agrees })
        // Cameras pointing every which way say nothing.
        let scattered = UpHints(cameraUps: [SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1)])
        #expect(UpEstimator.estimate(Self.floatingSphere(), hints: scattered).confidence == 0)
    }

    @Test func aSafeOrbitHintGivesItsFramesUp() {
        let scene = Self.floatingSphere()
        scene.conventionalFrame = .rub
        scene.cameraHints = CameraHints(elevationMin: -0.2, elevationMax: 1.2, radiusMin: 2)
        let hints = UpHints(scene: scene)
        #expect(hints.safeOrbitUp == SIMD3(0, 1, 0))
        let estimate = UpEstimator.estimate(scene, hints: hints)
        #expect(estimate.axis == .plusY && estimate.isConfident)
        scene.declaredFrame = .rfu
        #expect(UpEstimator.estimate(scene, hints: UpHints(scene: scene)).axis == .plusZ, "elevations are measured in the declared frame")
    }

    @Test func theSameEstimateWhateverTheThreadCount() {
        let scene = Self.groundWithBox()
        let one = UpEstimator.estimate(scene, threads: 1)
        for threads in [2, 3, 8] { #expect(UpEstimator.estimate(scene, threads: threads) == one) }
        let cone = Self.floatingCone()
        #expect(UpEstimator.estimate(cone, threads: 1) == UpEstimator.estimate(cone, threads: 4))
    }

    @Test func theEstimateEncodesAsTheReportsObject() throws {
        let estimate = UpEstimator.estimate(Self.groundWithBox())
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(estimate)) as! [String: Any]
        #expect(json["axis"] as? String == "+Y")
        #expect((json["vector"] as? [Double])?.count == 3)
        #expect(abs((json["confidence"] as? Double ?? -1) - estimate.confidence) < 1e-12)
        let evidence = try #require(json["evidence"] as? [[String: Any]])
        #expect(evidence.contains { $0["source"] as? String == "ground_plane" && $0["role"] as? String == "axis" })
        #expect(evidence.allSatisfy { $0["weight"] is Double && $0["agrees"] is Bool })
    }
}
