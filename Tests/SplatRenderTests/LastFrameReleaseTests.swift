import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport
@testable import SplatRender

/// `Renderer.renderLastFrame` hands the scene's pages back while it projects: the image must be
/// the one `render` gives, the scene must really be handed back, and the renderer must refuse
/// to draw from it again.
@Suite struct LastFrameReleaseTests {
    static func biker() throws -> SplatScene {
        let scene = try SplatFile.decode(path: Fixtures.sampleScenes.appendingPathComponent("biker.spz").path, sh: .quantized).scene
        FrameDecision.decide(for: scene).apply(to: scene)
        return scene
    }

    @Test(arguments: [ScenePreparation.perFrame, .prepared], [1, 2])
    func lastFrameIsTheFrameAndReleasesTheScene(preparation: ScenePreparation, threads: Int) throws {
        let settings = RenderSettings(width: 160, height: 120, threads: threads)
        let reference = try Self.biker()
        let camera = AutoFramer.frame(reference, width: 160, height: 120, fovYDegrees: 50)
            .camera(azimuthDegrees: 30, elevationDegrees: 15, fovYDegrees: 50)
        let expected = try Renderer(scene: reference, threads: threads, preparation: preparation)
            .render(camera: camera, settings: settings).image.pixels

        let scene = try Self.biker()
        #expect(scene.count > 8 * 8192, "several released groups of one chunk each")
        let renderer = Renderer(scene: scene, threads: threads, preparation: preparation)
        renderer.releaseGroupChunks = 1
        let last = try renderer.renderLastFrame(camera: camera, settings: settings)
        #expect(last.image.pixels == expected)
        #expect(renderer.hasReleasedScene)
        // Discarded pages read as zero: most of every column is gone.
        let zeros = scene.x.filter { $0 == 0 }.count
        #expect(Double(zeros) > 0.8 * Double(scene.count), "\(zeros) of \(scene.count) positions handed back")
        #expect(throws: SplatError.self) { _ = try renderer.render(camera: camera, settings: settings) }
        #expect(throws: SplatError.self) { _ = try renderer.renderLastFrame(camera: camera, settings: settings) }
    }
}
