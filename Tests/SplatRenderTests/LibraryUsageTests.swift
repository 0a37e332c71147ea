import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport

/// The README's library example, run as written (at a small size), so the documented API stays real.
@Suite struct LibraryUsageTests {
    @Test func readmeExampleRendersAFramedThumbnail() throws {
        let dir = try Fixtures.temporaryDirectory("readme")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("thumb.png").path

        let decoded = try SplatFile.decode(path: Fixtures.sampleScenes.appendingPathComponent("biker.spz").path,
                                           limits: DecodeLimits())
        let decision = FrameDecision.decide(for: decoded.scene)
        decision.apply(to: decoded.scene)
        let framing = AutoFramer.frame(decoded.scene, width: 64, height: 64, fovYDegrees: 50)
        let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                    elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: 50)
        let renderer = Renderer(scene: decoded.scene)
        let result = try renderer.render(camera: camera, settings: RenderSettings(width: 64, height: 64))
        try PNGWriter.write(result.image, to: out)

        #expect(decision.sourceFrame == .rub && decision.reason == .formatDefault)
        #expect(decoded.scene.count == 152_746)
        #expect(result.coverage > 0.15 && result.coverage < 0.95)
        let back = try PNGReader.read(path: out)
        #expect(back == result.image)
        #expect(back.width == 64 && back.channels == 4)
    }
}
