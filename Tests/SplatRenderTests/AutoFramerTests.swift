import Foundation
import SplatCore
import SplatFormats
import SplatRender
import Testing
import TestSupport

/// Automatic framing (`rendering.md` 11) on hand-made point sets and on the whole corpus.
@Suite struct AutoFramerTests {
    @Test func robustBoxIgnoresFaintSplatsAndFloaters() {
        // 1000 opaque splats on a 2×2×2 cube around (5, 0, 0), 10 far floaters, 500 faint ones.
        var splats: [TestScenes.Splat] = []
        var generator = SplitMix(seed: 9)
        func unit() -> Float { Float(generator.next() % 100_001) / 100_000 }
        for _ in 0..<1000 { splats.append(.init(position: SIMD3(4 + 2 * unit(), -1 + 2 * unit(), -1 + 2 * unit()), alpha: 0.9)) }
        for k in 0..<10 { splats.append(.init(position: SIMD3(1000 + Float(k), 0, 0), alpha: 0.9)) }
        for _ in 0..<500 { splats.append(.init(position: SIMD3(-50 * unit(), 0, 0), alpha: 0.05)) }
        let scene = TestScenes.scene(splats)
        let (lower, upper) = AutoFramer.robustBox(scene)
        #expect(abs(lower.x - 4.04) < 0.05 && abs(upper.x - 5.96) < 0.05 + 0.02)
        #expect(abs(lower.y + 0.96) < 0.05 && abs(upper.y - 0.96) < 0.05)
        let framing = AutoFramer.frame(scene, width: 200, height: 100, fovYDegrees: 40)
        #expect(abs(framing.center.x - 5) < 0.05)
        let radius = 0.5 * ((upper - lower) * (upper - lower)).sum().squareRoot()
        #expect(abs(framing.radius - radius) < 1e-9)
        // The vertical FOV is the narrower one here: distance = 1.1·R / sin(20°).
        #expect(abs(framing.distance - 1.1 * radius / sin(20 * Double.pi / 180)) < 1e-9)
        // Portrait: the horizontal FOV is narrower.
        let portrait = AutoFramer.frame(scene, width: 100, height: 200, fovYDegrees: 40)
        let fovX = 2 * atan(0.5 * tan(20 * Double.pi / 180))
        #expect(abs(portrait.distance - 1.1 * radius / sin(fovX / 2)) < 1e-9)
    }

    @Test func orbitCameraGeometry() throws {
        let framing = Framing(center: SIMD3(1, 2, 3), radius: 1, distance: 10, up: SIMD3(0, 1, 0))
        let front = framing.camera(azimuthDegrees: 0, elevationDegrees: 0, fovYDegrees: 50)
        #expect(simd_distance(front.position, SIMD3(1, 2, 13)) < 1e-9)
        #expect(front.target == SIMD3(1, 2, 3) && front.up == SIMD3(0, 1, 0))
        let side = framing.camera(azimuthDegrees: 90, elevationDegrees: 0, fovYDegrees: 50)
        #expect(simd_distance(side.position, SIMD3(11, 2, 3)) < 1e-9)
        let above = framing.camera(azimuthDegrees: 35, elevationDegrees: 90, fovYDegrees: 50)
        #expect(abs(above.position.y - 12) < 1e-9)
        // Z-up orbit: e₁ falls back to +X.
        let zUp = Framing(center: .zero, radius: 1, distance: 2, up: SIMD3(0, 0, 1))
        #expect(simd_distance(zUp.camera(azimuthDegrees: 0, elevationDegrees: 0, fovYDegrees: 50).position, SIMD3(2, 0, 0)) < 1e-9)
        // A default camera sees +Y at the top of the image: rows are (r, d, f) with d ≈ −up.
        let rows = try #require(framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                               elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: 50).rotationRows)
        #expect(rows.down.y < -0.9)
    }

    @Test func tinySceneKeepsClearOfTheNearPlane() {
        let splats = (0..<20).map { k in TestScenes.Splat(position: SIMD3(Float(k % 4) * 0.01, Float(k / 4) * 0.01, 0),
                                                           logScale: SIMD3(repeating: log(0.005)), alpha: 1) }
        let framing = AutoFramer.frame(TestScenes.scene(splats), width: 64, height: 64, fovYDegrees: 50)
        #expect(framing.distance - framing.radius >= AutoFramer.nearClearance - 1e-12)
    }

    /// Every corpus scene, in the render frame, framed automatically at 32×32: not blank, not
    /// swamped, all of it in view, and filling the frame along its larger image extent.
    @Test(arguments: [
        "ply/gs3d-pr477-lod1_tile_0_0.5x.ply", "ply/gs3d-pr477-lod3_tile_0.ply", "ply/supersplat-fruit_drops_minimal.ply",
        "ply/metalsplatter-3-points-from-train.ply", "ply/splatapult-test.ply", "compressed-ply/guitar.compressed.ply",
        "spz/biker.spz", "spz/adobe-SanitySplats.spz", "spz/metalsplatter-3-points-from-train.spz",
        "spz/splat-transform-minimal-v2.spz", "spz/splat-transform-minimal-v3.spz", "spz/splat-transform-minimal-v4.spz",
        "sog/monkey_0001.sog", "sog/playbot-lod4/meta.json", "sog/playcanvas-logo-v1/meta.json",
        "splat/luma-seal.splat", "splat/splat-transform-minimal.splat",
    ])
    func corpusSceneIsFramed(_ file: String) throws {
        let scene = try SplatFile.decode(path: Fixtures.corpusFile(file)).scene
        FrameDecision.decide(for: scene).apply(to: scene)
        let size = 32
        let framing = AutoFramer.frame(scene, width: size, height: size, fovYDegrees: 50)
        let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                    elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: 50)
        let result = try Renderer(scene: scene).render(camera: camera, settings: RenderSettings(width: size, height: size))
        let alpha = stride(from: 3, to: result.image.pixels.count, by: 4).map { result.image.pixels[$0] }
        #expect(alpha.contains { $0 > 0 }, "blank")
        #expect(result.coverage <= 0.95)
        // Nothing is culled by the frame: every splat that can be visible at all projects in view.
        let faint = scene.alpha.filter { $0 < 1.0 / 255.0 }.count
        #expect(result.stats.visibleSplats == scene.count - faint)
        if scene.count >= 1000 {
            // Real scenes: the object spans most of the frame along one image axis (the framing
            // is tight), and coverage is substantial (thin objects — a guitar, a standing person
            // — cover ~10 % of a square frame even when framed edge to edge).
            var minX = size, maxX = -1, minY = size, maxY = -1
            for j in 0..<size {
                for i in 0..<size where alpha[j * size + i] >= 128 {
                    minX = min(minX, i); maxX = max(maxX, i); minY = min(minY, j); maxY = max(maxY, j)
                }
            }
            let extent = max(maxX - minX + 1, maxY - minY + 1)
            #expect(Double(extent) >= 0.55 * Double(size), "extent \(extent) px")
            #expect(result.coverage >= 0.08, "coverage \(result.coverage)")
        }
    }
}

private func simd_distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
