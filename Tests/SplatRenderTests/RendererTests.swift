import Foundation
import SplatCore
import SplatFormats
import SplatImage
@testable import SplatRender
import Testing
import TestSupport

/// Whole frames: determinism across thread counts, output modes, compositing rules, errors.
@Suite struct RendererTests {
    static func fruit() throws -> SplatScene {
        try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
    }

    @Test func imagesAreIdenticalForAnyThreadCount() throws {
        // ~19k splats: several preprocessing chunks, sort blocks and scatter blocks.
        let scene = TestScenes.tiled(try Self.fruit(), count: 18_000, spacing: SIMD2(0.6, 0.6))
        let framing = AutoFramer.frame(scene, width: 96, height: 80, fovYDegrees: 50, up: SIMD3(0, -1, 0))
        let camera = framing.camera(azimuthDegrees: 20, elevationDegrees: 30, fovYDegrees: 50)
        let renderer = Renderer(scene: scene, threads: 1)
        var reference: RenderResult?
        for threads in [1, 2, 3, 7] {
            let result = try renderer.render(camera: camera, settings: RenderSettings(width: 96, height: 80, threads: threads))
            if let reference {
                #expect(result.image == reference.image, "\(threads) threads")
                #expect(result.coverage == reference.coverage)
                #expect(result.stats.tilePairs == reference.stats.tilePairs)
            } else {
                reference = result
                #expect(result.coverage > 0.2)
                #expect(result.stats.visibleSplats > 10_000)
            }
        }
    }

    @Test func singleSplatPixelsFollowTheBlendingRules() throws {
        // One splat straight ahead: every pixel is α = min(0.99, o·e^power) of its colour, with the
        // power evaluated at the pixel centre; pixels where α < 1/255 stay background.
        let splat = TestScenes.Splat(position: SIMD3(0.1, -0.05, 3), logScale: SIMD3(log(0.2), log(0.1), log(0.15)),
                                     rotation: SIMD4(0.9, 0.1, 0.3, -0.2), alpha: 0.7,
                                     dc: SIMD3(0.8, -0.5, 3.0))
        let scene = TestScenes.scene([splat])
        let renderer = Renderer(scene: scene, threads: 2)
        let size = 48
        let bg = SIMD3<Float>(0.1, 0.2, 0.3)
        let result = try renderer.render(camera: TestScenes.identityCamera,
                                         settings: RenderSettings(width: size, height: size, background: bg))
        let view = try ViewProjection(camera: TestScenes.identityCamera, width: size, height: size)
        let p = Preprocessor(scene: RenderScene(scene: scene, threads: 1), view: view, antialiased: false, shDegree: 0)
            .run(threads: 1).projected[0]
        var worst = 0, blended = 0, offByTwo = 0
        for j in 0..<size {
            for i in 0..<size {
                let dx = Double(p.u) - (Double(i) + 0.5), dy = Double(p.v) - (Double(j) + 0.5)
                let power = -0.5 * (Double(p.conicA) * dx * dx + Double(p.conicC) * dy * dy) - Double(p.conicB) * dx * dy
                var alpha = min(0.99, Double(p.opacity) * exp(power))
                if power > 0 || alpha < 1.0 / 255 { alpha = 0 } else { blended += 1 }
                for (c, colour) in [p.red, p.green, p.blue].enumerated() {
                    let v = Double(colour) * alpha + (1 - alpha) * Double(bg[c])
                    let expected = Int((min(max(v, 0), 1) * 255 + 0.5).rounded(.down))
                    let difference = abs(Int(result.image.pixels[(j * size + i) * 3 + c]) - expected)
                    worst = max(worst, difference)
                    if difference > 1 { offByTwo += 1 }
                }
            }
        }
        // Float vs Double can flip the α ≥ 1/255 decision on a pixel right at the threshold, which
        // moves a colour-1.35 channel by up to 2 levels; anywhere else agreement is within 1.
        #expect(worst <= 2)
        #expect(offByTwo <= 3)
        #expect(blended > 50)
        // DC 3.0 gives a colour above 1 (clamped only in the output): the centre's blue saturates.
        let centre = (Int(p.v) * size + Int(p.u)) * 3
        #expect(result.image.pixels[centre + 2] == 255)
    }

    @Test func stoppingSplatIsNotBlended() throws {
        // Two coincident opaque splats, α = 0.99 at the centre pixel: after the first (red),
        // T = 0.01, and the second would leave T = 1e−4·(1 − 1e−6) < 1e−4, so it stops the pixel
        // without being blended. It is green with colour 50, so blending it would add ~126 levels.
        let red = (SIMD3<Float>(1, 0, 0) - 0.5) / SphericalHarmonics.c0
        let green = (SIMD3<Float>(0, 50, 0) - 0.5) / SphericalHarmonics.c0
        let splats = [TestScenes.Splat(position: SIMD3(0, 0, 2), logScale: SIMD3(repeating: log(0.5)), alpha: 1, dc: red),
                      TestScenes.Splat(position: SIMD3(0, 0, 2.01), logScale: SIMD3(repeating: log(0.5)), alpha: 1, dc: green)]
        let renderer = Renderer(scene: TestScenes.scene(splats), threads: 1)
        let result = try renderer.render(camera: TestScenes.identityCamera,
                                         settings: RenderSettings(width: 32, height: 32, background: SIMD3(0, 0, 1)))
        let centre = (16 * 32 + 16) * 3
        // S = 0.99·red; T = 0.01 stays for the background (blue 0.01 → 3).
        #expect(Array(result.image.pixels[centre..<centre + 3]) == [252, 0, 3])
        // Far from the centre α is smaller, nothing stops, and the bright second splat shows.
        let edge = (16 * 32 + 4) * 3
        #expect(result.image.pixels[edge + 1] > 100)
    }

    @Test func transparentOutputUsesStraightAlpha() throws {
        let splat = TestScenes.Splat(position: SIMD3(0, 0, 3), logScale: SIMD3(repeating: log(0.3)), alpha: 0.5,
                                     dc: (SIMD3<Float>(0.2, 0.6, 1.0) - 0.5) / SphericalHarmonics.c0)
        let renderer = Renderer(scene: TestScenes.scene([splat]))
        let rgba = try renderer.render(camera: TestScenes.identityCamera, settings: RenderSettings(width: 32, height: 32))
        #expect(rgba.image.channels == 4)
        let centre = (16 * 32 + 16) * 4
        // Near the centre α ≈ 0.5·e^−0.03: colour un-premultiplied back to the splat colour.
        let px = Array(rgba.image.pixels[centre..<centre + 4])
        #expect(abs(Int(px[0]) - 51) <= 1 && abs(Int(px[1]) - 153) <= 1 && px[2] == 255)
        #expect((118...127).contains(Int(px[3])))
        // Far corners are fully transparent, with colour 0.
        #expect(Array(rgba.image.pixels[0..<4]) == [0, 0, 0, 0])
        let opaque = try renderer.render(camera: TestScenes.identityCamera,
                                         settings: RenderSettings(width: 32, height: 32, background: SIMD3(1, 1, 1)))
        #expect(opaque.image.channels == 3)
        #expect(Array(opaque.image.pixels[0..<3]) == [255, 255, 255])
        #expect(abs(rgba.coverage - opaque.coverage) < 1e-12)
    }

    @Test func pairBudgetAndArgumentsAreChecked() throws {
        let renderer = Renderer(scene: try Self.fruit())
        let camera = Camera(position: SIMD3(0.750833, 0.115304, -1.475266), target: SIMD3(0.750833, 0.115304, -2.136216),
                            up: SIMD3(0, -1, 0))
        var settings = RenderSettings(width: 256, height: 256, background: SIMD3(0, 0, 0))
        settings.maxTilePairs = 1000
        #expect(throws: SplatError.self) { try renderer.render(camera: camera, settings: settings) }
        do {
            _ = try renderer.render(camera: camera, settings: settings)
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.field == "maxTilePairs")
        }
        let bad: [(Camera, RenderSettings)] = [
            (camera, RenderSettings(width: 0, height: 10)),
            (camera, RenderSettings(width: 10, height: 100_000)),
            (Camera(position: SIMD3(0, 0, 0), target: SIMD3(0, 0, 0), up: SIMD3(0, 1, 0)), RenderSettings()),
            (Camera(position: SIMD3(0, 0, 0), target: SIMD3(0, 1, 0), up: SIMD3(0, 1, 0)), RenderSettings()),
            (Camera(position: SIMD3(0, 0, 0), target: SIMD3(0, 0, 1), up: SIMD3(0, 1, 0), fovYDegrees: 180), RenderSettings()),
            (Camera(position: SIMD3(.nan, 0, 0), target: SIMD3(0, 0, 1), up: SIMD3(0, 1, 0)), RenderSettings()),
        ]
        for (cam, s) in bad {
            do {
                _ = try renderer.render(camera: cam, settings: s)
                Issue.record("expected invalid_argument for \(cam) \(s.width)x\(s.height)")
            } catch {
                #expect(error.kind == .invalidArgument)
            }
        }
    }

    @Test func emptySceneRendersBackground() throws {
        let scene = SplatScene(count: 0, shDegree: 0)
        let renderer = Renderer(scene: scene)
        let result = try renderer.render(camera: TestScenes.identityCamera,
                                         settings: RenderSettings(width: 20, height: 18, background: SIMD3(0.5, 0, 1)))
        #expect(result.coverage == 0 && result.stats.visibleSplats == 0 && result.stats.tilePairs == 0)
        #expect(result.image.pixels.count == 20 * 18 * 3)
        #expect(Array(result.image.pixels[0..<3]) == [128, 0, 255])
        let framing = AutoFramer.frame(scene, width: 20, height: 18, fovYDegrees: 50)
        #expect(framing.radius > 0 && framing.distance.isFinite)
    }

    @Test func antialiasedFlagFollowsSceneUnlessOverridden() throws {
        let splats = [TestScenes.Splat(position: SIMD3(0, 0, 4), logScale: SIMD3(log(0.004), log(0.02), log(0.004)), alpha: 0.9,
                                       dc: SIMD3(repeating: 1))]
        let plain = Renderer(scene: TestScenes.scene(splats))
        let flagged = Renderer(scene: TestScenes.scene(splats, model: .antialiased))
        let settings = RenderSettings(width: 32, height: 32, background: SIMD3(0, 0, 0))
        let a = try plain.render(camera: TestScenes.identityCamera, settings: settings)
        let b = try flagged.render(camera: TestScenes.identityCamera, settings: settings)
        var forced = settings
        forced.antialiased = true
        let c = try plain.render(camera: TestScenes.identityCamera, settings: forced)
        #expect(b.coverage < a.coverage * 0.8, "a thin splat loses opacity under the compensation")
        #expect(b.image == c.image)
    }
}

/// The narrowed tile rectangles and every pre-test before exp claim to be exact: with them all
/// disabled (INRIA rectangle only, every pixel of every binned tile evaluated) the image must be
/// byte-identical.
@Suite struct ExactCullingTests {
    @Test func pretestsChangeNothing() throws {
        let fruit = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
        let cameras = [
            Camera(position: SIMD3(0.750833, 0.115304, -1.475266), target: SIMD3(0.750833, 0.115304, -2.136216), up: SIMD3(0, -1, 0)),
            // Close and oblique: large, elongated footprints and the Jacobian clamp.
            Camera(position: SIMD3(0.2, 0.5, -1.7), target: SIMD3(0.9, 0.1, -2.3), up: SIMD3(0, -1, 0), fovYDegrees: 80),
        ]
        for (index, camera) in cameras.enumerated() {
            do {
                let antialiased = index == 1
                let settings = RenderSettings(width: 56, height: 48, background: index == 0 ? SIMD3(0, 0, 0) : nil,
                                              antialiased: antialiased)
                let fast = try Renderer(scene: fruit).render(camera: camera, settings: settings)
                let reference = Renderer(scene: fruit)
                reference.exhaustive = true
                let slow = try reference.render(camera: camera, settings: settings)
                #expect(fast.image == slow.image, "camera \(index) antialiased \(antialiased)")
                #expect(fast.coverage == slow.coverage)
                #expect(fast.stats.tilePairs <= slow.stats.tilePairs)
            }
        }
    }

    /// Edge tiles with partial block rows and columns (61 = 3·16 + 13 columns, 37 = 2·16 + 5
    /// rows, so the last tiles have 13 columns and 5 rows: a block column of one pixel and a block
    /// row of one line): the compositor clamps reaches to the whole tile and relies on the blocks
    /// and lanes past the image being dead, which must leave exactly the pixels evaluating every
    /// pixel gives, at any thread count.
    @Test func partialEdgeTilesChangeNothing() throws {
        let fruit = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
        // The golden example's camera, a little closer: the sign fills the frame, edges included.
        let camera = Camera(position: SIMD3(0.750833, 0.115304, -1.8), target: SIMD3(0.750833, 0.115304, -2.136216),
                            up: SIMD3(0, -1, 0))
        for background in [nil, SIMD3<Float>(0.1, 0.2, 0.3)] {
            let settings = RenderSettings(width: 61, height: 37, background: background)
            let one = try Renderer(scene: fruit, threads: 1).render(camera: camera, settings: settings)
            let two = try Renderer(scene: fruit, threads: 2).render(camera: camera, settings: settings)
            let reference = Renderer(scene: fruit, threads: 1)
            reference.exhaustive = true
            let slow = try reference.render(camera: camera, settings: settings)
            if background == nil {
                // Covered pixels in the partial tiles (columns 48-60, rows 32-36): the test has teeth.
                var edge = 0
                for y in 0..<37 {
                    for x in 0..<61 where (x >= 48 || y >= 32) && one.image.pixels[(y * 61 + x) * 4 + 3] > 0 { edge += 1 }
                }
                #expect(edge > 300, "\(edge) covered pixels in the edge tiles")
            }
            #expect(one.image == slow.image, "background \(String(describing: background))")
            #expect(two.image == one.image)
        }
    }
}
