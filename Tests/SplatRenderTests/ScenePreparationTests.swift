import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import Testing
import TestSupport

/// `ScenePreparation.perFrame` recomputes each splat's Σ in the frame instead of keeping it: the
/// images and the count of unusable splats are the prepared form's exactly.
@Suite struct ScenePreparationTests {
    static func fruit() throws -> SplatScene {
        let scene = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
        FrameDecision.decide(for: scene).apply(to: scene)
        return scene
    }

    static func cameras(_ scene: SplatScene) -> [Camera] {
        let framing = AutoFramer.frame(scene, width: 200, height: 150, fovYDegrees: 50)
        return [0.0, 1.3, 3.9].map { azimuth in
            framing.camera(azimuthDegrees: azimuth * 180 / .pi, elevationDegrees: 20, fovYDegrees: 50)
        }
    }

    static func images(_ scene: SplatScene, _ preparation: ScenePreparation, threads: Int? = nil,
                       antialiased: Bool? = nil) throws -> (Renderer, [[UInt8]]) {
        let renderer = Renderer(scene: scene, threads: threads, preparation: preparation)
        let settings = RenderSettings(width: 200, height: 150, antialiased: antialiased)
        return (renderer, try cameras(scene).map { try renderer.render(camera: $0, settings: settings).image.pixels })
    }

    @Test(arguments: [false, true])
    func perFrameImagesAreThePreparedOnes(antialiased: Bool) throws {
        let scene = try Self.fruit()
        let (kept, a) = try Self.images(scene, .prepared, antialiased: antialiased)
        let (recomputed, b) = try Self.images(scene, .perFrame, antialiased: antialiased)
        #expect(kept.preparation == .prepared && recomputed.preparation == .perFrame)
        #expect(a == b)
        #expect(a.allSatisfy { $0.contains { $0 != 0 } }, "the views show the scene")
        let (_, one) = try Self.images(scene, .perFrame, threads: 1, antialiased: antialiased)
        #expect(one == b, "independent of the thread count")
    }

    /// Unusable splats (zero quaternion, overflowing scale, NaN centre or colour) are counted the
    /// same and drawn by neither form.
    @Test func unusableSplatsAreDroppedAlike() throws {
        let scene = try Self.fruit()
        for i in [5, 700, 2_000] { scene.rotW[i] = 0; scene.rotX[i] = 0; scene.rotY[i] = 0; scene.rotZ[i] = 0 }
        scene.logScaleY[11] = 95
        scene.x[12] = .nan
        scene.dcG[4_000] = .infinity
        let (kept, a) = try Self.images(scene, .prepared)
        let (recomputed, b) = try Self.images(scene, .perFrame)
        #expect(kept.droppedSplatCount == 6)
        #expect(recomputed.droppedSplatCount == 6)
        #expect(a == b)
    }

    /// A non-finite Float32 SH value can only be dropped by the prepared pass: such a scene is
    /// prepared whatever was asked.
    @Test func nonFiniteSHFallsBackToPrepared() throws {
        let scene = try Self.fruit()
        #expect(scene.shDegree == 3)
        scene.sh[3 * 45 + 7] = .nan
        let (recomputed, b) = try Self.images(scene, .perFrame)
        let (_, a) = try Self.images(scene, .prepared)
        #expect(recomputed.preparation == .prepared)
        #expect(recomputed.droppedSplatCount == 1)
        #expect(a == b)
    }

    /// SPZ bounds every value it encodes, so a render job tells the renderer that no splat is
    /// unusable and the per-frame form skips its counting pass. The images never depend on that
    /// count: a frame drops unusable splats by its own test, so even a wrong promise changes only
    /// `droppedSplatCount`.
    @Test func aKnownUnusableCountSkipsTheCountingAndNotTheDrop() throws {
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile("spz/biker.spz"), sh: .quantized)
        #expect(decoded.everySplatUsable)
        #expect(try !SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).everySplatUsable)
        let biker = decoded.scene
        FrameDecision.decide(for: biker).apply(to: biker)
        let token = CancellationToken()
        let counted = Renderer(scene: biker, preparation: .perFrame)
        let promised = try Renderer(scene: biker, preparation: .perFrame, unusableSplats: 0, cancellation: token)
        #expect(counted.droppedSplatCount == 0 && promised.droppedSplatCount == 0)
        let settings = RenderSettings(width: 160, height: 120)
        for camera in Self.cameras(biker) {
            #expect(try counted.render(camera: camera, settings: settings).image.pixels
                    == promised.render(camera: camera, settings: settings).image.pixels)
        }

        let scene = try Self.fruit()
        scene.rotW[5] = 0; scene.rotX[5] = 0; scene.rotY[5] = 0; scene.rotZ[5] = 0
        scene.x[12] = .nan
        let (honest, a) = try Self.images(scene, .perFrame)
        let wrong = try Renderer(scene: scene, preparation: .perFrame, unusableSplats: 0, cancellation: token)
        #expect(honest.droppedSplatCount == 2 && wrong.droppedSplatCount == 0)
        let b = try Self.cameras(scene).map { try wrong.render(camera: $0, settings: RenderSettings(width: 200, height: 150)).image.pixels }
        #expect(a == b)
    }

    /// The estimate leaves out the 28 bytes a splat the per-frame form does not keep.
    @Test func estimateCountsOnlyWhatIsKept() {
        let prepared = Renderer.estimatedBytes(splats: 1_000_000, width: 512, height: 512)
        let perFrame = Renderer.estimatedBytes(splats: 1_000_000, width: 512, height: 512, preparation: .perFrame)
        #expect(prepared - perFrame == 28_000_000)
    }
}
