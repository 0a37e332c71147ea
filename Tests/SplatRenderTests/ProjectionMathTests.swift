import Foundation
import SplatCore
@testable import SplatRender
import Testing

/// Per-splat math of `rendering.md` 4–7 and 9 against values computed by hand (in Double, from
/// the formulas, with a 64×64 image, vertical FOV 60° and the identity view).
@Suite struct ProjectionMathTests {
    static let fy = 32 / tan(Double.pi / 6) // 55.4256

    func project(_ scene: SplatScene, size: Int = 64, antialiased: Bool = false, shDegree: Int = 0,
                 camera: Camera = TestScenes.identityCamera) throws -> Preprocessor.Output {
        let view = try ViewProjection(camera: camera, width: size, height: size)
        return Preprocessor(scene: RenderScene(scene: scene, threads: 1), view: view, antialiased: antialiased, shDegree: shDegree)
            .run(threads: 1, recordIndices: true)
    }

    func close(_ a: Float, _ b: Double, _ tolerance: Double = 2e-5) -> Bool {
        abs(Double(a) - b) <= tolerance * max(1, abs(b))
    }

    @Test func identityLookAtMatchesGoldenMatrix() throws {
        // camera.json of the golden example: derived.world_to_camera_row_major.
        let camera = Camera(position: SIMD3(0.750833, 0.115304, -1.475266), target: SIMD3(0.750833, 0.115304, -2.136216),
                            up: SIMD3(0, -1, 0))
        let rows = try #require(camera.rotationRows)
        #expect(rows.right == SIMD3(-1, 0, 0))
        #expect(rows.down == SIMD3(0, 1, 0))
        #expect(rows.forward == SIMD3(0, 0, -1))
        let view = try ViewProjection(camera: camera, width: 256, height: 256)
        #expect(abs(view.translation.x - 0.750833) < 1e-6)
        #expect(abs(view.translation.y + 0.115304) < 1e-6)
        #expect(abs(view.translation.z + 1.475266) < 1e-6)
        #expect(abs(Double(view.fx) - 274.4968858252235) < 1e-4)
        #expect(view.cx == 128 && view.cy == 128)
        #expect(abs(Double(view.limitX) - 1.3 * tan(25 * Double.pi / 180)) < 1e-6)
    }

    @Test func knownSplatProjection() throws {
        let scene = TestScenes.scene([.init(position: SIMD3(0.5, -0.25, 5))])
        let out = try project(scene)
        #expect(out.visibleCount == 1)
        let p = out.projected[0], rect = out.rects[0]
        // u = fx·x/z + W/2, v = fy·y/z + H/2.
        #expect(close(p.u, 37.542562584220406))
        #expect(close(p.v, 29.228718707889797))
        // Σ' = J·Σ·Jᵀ with Σ = 0.01·I: a = 1.241088, b = −0.006144, c = 1.231872; conic of Σ' + 0.3·I.
        #expect(close(p.conicA, 0.6489025872657472))
        #expect(close(p.conicB, 0.0026026048495962793))
        #expect(close(p.conicC, 0.6528064945401416))
        #expect(p.opacity == 0.8)
        #expect(out.depth[0] == 5)
        // r = ceil(3·√λ₁) = 5 (the 0.1 floor applies: the discriminant is 6e−5); INRIA rectangle
        // from (u − 0.5, v − 0.5): x ∈ [2, 3), y ∈ [1, 3); narrowing to the reaches agrees.
        #expect(rect == TileRect(2, 1, 3, 3))
        #expect(out.pairCount == 2)
        // −ln(255·o) − 1e−3.
        #expect(abs(Double(p.powerThreshold) - (-log(255 * 0.8) - 1e-3)) < 1e-5)
    }

    @Test func antialiasedCompensation() throws {
        let scene = TestScenes.scene([.init(position: SIMD3(0.5, -0.25, 5))])
        let out = try project(scene, antialiased: true)
        // o·sqrt(max(2.5e−5, det/det⁺)).
        #expect(close(out.projected[0].opacity, 0.6437944367251356))
        // A point splat (s = 0) hits the ρ floor √2.5e−5 = 0.005: o_eff = 0.004 ≥ 1/255 survives.
        let point = TestScenes.scene([.init(position: SIMD3(0, 0, 3), logScale: SIMD3(repeating: -.infinity), alpha: 0.8)])
        let pointOut = try project(point, antialiased: true)
        #expect(pointOut.visibleCount == 1)
        #expect(close(pointOut.projected[0].opacity, 0.8 * 0.005, 1e-4))
        // Without the compensation the point is a 0.3 px² dot of full opacity.
        let plain = try project(point)
        #expect(plain.projected[0].opacity == 0.8)
        #expect(close(plain.projected[0].conicA, 1 / 0.3))
    }

    @Test func opacityBoxTrimsInriaRectangle() throws {
        // A faint, small splat whose INRIA rectangle spans tile rows 1–2 but whose α ≥ 1/255
        // region (k = √(2 ln(255·0.05)) = 2.26σ) stays in row 2.
        let scene = TestScenes.scene([.init(position: SIMD3(0.3, 0.108253175, 2.0),
                                            logScale: SIMD3(repeating: log(0.004)), alpha: 0.05)])
        let out = try project(scene)
        let p = out.projected[0], rect = out.rects[0]
        #expect(close(p.u, 40.31384387633061))
        #expect(close(p.v, 34.99999998689032))
        #expect(close(p.conicA, 3.199340187208712, 1e-4))
        #expect(close(p.conicB, -0.0010219700583054673, 2e-3))
        #expect(close(p.conicC, 3.201803582046212, 1e-4))
        #expect(rect == TileRect(2, 2, 3, 3))
    }

    @Test func jacobianClampOnlyAffectsCovariance() throws {
        // x/z = 0.8 is beyond 1.3·tan(30°) = 0.75: the Jacobian uses t.x = 0.75·z, the centre
        // (12 px right of the image) does not; the splat is large enough to reach into it.
        let z = 4.0, x = 3.2, s = 0.5
        let scene = TestScenes.scene([.init(position: SIMD3(Float(x), 0, Float(z)), logScale: SIMD3(repeating: Float(log(s))))])
        let out = try project(scene, size: 64)
        let fy = Self.fy
        let limit = 1.3 * tan(Double.pi / 6)
        let j00 = fy / z, j02 = -fy * (limit * z) / (z * z), j11 = fy / z
        let s2 = s * s
        let a = s2 * (j00 * j00 + j02 * j02) + 0.3, c = s2 * j11 * j11 + 0.3
        let p = out.projected[0]
        #expect(close(p.u, fy * x / z + 32))
        #expect(close(p.conicA, 1 / a, 1e-4))
        #expect(close(p.conicC, 1 / c, 1e-4))
        #expect(p.conicB == 0)
        #expect(out.visibleCount == 1)
    }

    @Test func nearPlaneAndOpacityCulls() throws {
        let scene = TestScenes.scene([
            .init(position: SIMD3(0, 0, 0.15)),            // in front of the eye but before the near plane
            .init(position: SIMD3(0, 0, 0.2)),             // exactly on it: dropped (t.z ≤ near)
            .init(position: SIMD3(0, 0, -3)),              // behind the camera
            .init(position: SIMD3(0, 0, 3), alpha: 0.0039), // o < 1/255: can never pass the α test
            .init(position: SIMD3(0, 0, 0.25)),            // kept
            .init(position: SIMD3(40, 0, 3)),              // far off-screen: touches no tile
        ])
        let out = try project(scene)
        #expect(out.visibleCount == 1)
        #expect(out.indices?[0] == 4)
    }

    @Test func unusableSplatsAreDroppedAndPointsKept() throws {
        let scene = TestScenes.scene([
            .init(position: SIMD3(0, 0, 3), rotation: SIMD4(0, 0, 0, 0)),              // zero quaternion
            .init(position: SIMD3(.nan, 0, 3)),
            .init(position: SIMD3(0, 0, 3), logScale: SIMD3(0, .infinity, 0)),
            .init(position: SIMD3(0, 0, 3), logScale: SIMD3(0, 50, 0)),                // Σ overflows
            .init(position: SIMD3(0, 0, 3), logScale: SIMD3(-.infinity, -.infinity, -.infinity)), // a point: kept
            .init(position: SIMD3(0, 0, 3), rotation: SIMD4(2, 0, 0, 0)),              // normalised, kept
        ])
        let renderer = Renderer(scene: scene, threads: 1)
        #expect(renderer.droppedSplatCount == 4)
        let out = try project(scene)
        #expect(out.visibleCount == 2)
        #expect(out.indices?[0] == 4 && out.indices?[1] == 5)
        // A NaN SH coefficient (here in band 2 of splat 17 of 40) drops only that splat.
        var splats = (0..<40).map { k in TestScenes.Splat(position: SIMD3(Float(k % 5) * 0.1, 0, 3),
                                                          sh: Array(repeating: SIMD3(0.1, 0.1, 0.1), count: 8)) }
        splats[17].sh[5] = SIMD3(0, .nan, 0)
        let withSH = Renderer(scene: TestScenes.scene(splats, shDegree: 2), threads: 1)
        #expect(withSH.droppedSplatCount == 1)
    }

    @Test func shColourMatchesReferenceBasis() throws {
        // Degree 3 with arbitrary coefficients, seen from an off-axis camera, against
        // SphericalHarmonics.evaluate (Double): colour = max(SH + 0.5, 0), no upper clamp.
        var generator = SystemRandomNumberGenerator()
        var splats: [TestScenes.Splat] = []
        for i in 0..<11 {
            let sh = (0..<15).map { _ in SIMD3<Float>((0..<3).map { _ in Float.random(in: -0.6...0.6, using: &generator) }) }
            splats.append(.init(position: SIMD3(Float(i) * 0.3 - 1.5, Float(i % 3) * 0.4 - 0.4, 4 + Float(i) * 0.1),
                                dc: SIMD3(Float(i) * 0.4 - 2, 1.5, -0.3), sh: sh))
        }
        let scene = TestScenes.scene(splats, shDegree: 3)
        let eye = SIMD3<Double>(0.4, -0.3, -1)
        let camera = Camera(position: eye, target: SIMD3(0, 0, 4), up: SIMD3(0, -1, 0), fovYDegrees: 70)
        for degree in [0, 1, 2, 3] {
            let out = try project(scene, size: 128, shDegree: degree, camera: camera)
            #expect(out.visibleCount == splats.count)
            for k in 0..<out.visibleCount {
                let i = Int(try #require(out.indices)[k])
                let s = splats[i]
                let mu = SIMD3<Double>(s.position)
                let d = (mu - eye) / ((mu - eye) * (mu - eye)).sum().squareRoot()
                let count = SplatScene.shCoefficientCount(degree: degree)
                let expected = SphericalHarmonics.evaluate(dc: SIMD3<Double>(s.dc), sh: s.sh.prefix(count).map { SIMD3<Double>($0) },
                                                           direction: d)
                let p = out.projected[k]
                for (got, want) in zip([p.red, p.green, p.blue], [expected.x, expected.y, expected.z]) {
                    #expect(abs(Double(got) - max(want + 0.5, 0)) < 2e-6, "splat \(i) degree \(degree)")
                }
            }
        }
        // The DC values chosen give colours below 0 (clamped) and above 1 (kept).
        let out = try project(scene, size: 128, shDegree: 0, camera: camera)
        #expect(out.projected[0].red == 0)
        #expect(out.projected[0].green > 0.9)
    }
}
