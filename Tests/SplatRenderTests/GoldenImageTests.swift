import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import Testing
import TestSupport

/// The golden example of `shared/spec/golden-example`: the fruit PLY rendered, without frame
/// conversion, by an independent reference renderer.
@Suite struct GoldenImageTests {
    struct GoldenCamera {
        var camera: Camera
        var width: Int
        var height: Int
        var background: SIMD3<Float>
        var antialiased: Bool
    }

    static func goldenCamera() throws -> GoldenCamera {
        let data = try Data(contentsOf: Fixtures.goldenExample.appendingPathComponent("camera.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let golden = try #require((root["goldens"] as? [[String: Any]])?.first)
        let cam = try #require(golden["camera"] as? [String: Any])
        func vector(_ key: String) throws -> SIMD3<Double> {
            let v = try #require(cam[key] as? [Double])
            return SIMD3(v[0], v[1], v[2])
        }
        let bg = try vector("background")
        return GoldenCamera(camera: Camera(position: try vector("position"), target: try vector("target"), up: try vector("up"),
                                           fovYDegrees: try #require(cam["fovy_deg"] as? Double),
                                           near: try #require(cam["near"] as? Double)),
                            width: try #require(cam["width"] as? Int), height: try #require(cam["height"] as? Int),
                            background: SIMD3<Float>(bg), antialiased: try #require(golden["antialiased"] as? Bool))
    }

    @Test func fruitMatchesGolden() throws {
        let golden = try Self.goldenCamera()
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply"))
        let renderer = Renderer(scene: decoded.scene)
        let settings = RenderSettings(width: golden.width, height: golden.height, background: golden.background,
                                      antialiased: golden.antialiased)
        let result = try renderer.render(camera: golden.camera, settings: settings)
        let expected = try PNGReader.read(path: Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path)
        let report = ImageComparison.compare(result.image, expected)
        print("golden fruit: \(report)  visible \(result.stats.visibleSplats) pairs \(result.stats.tilePairs)")
        #expect(report.sameShape)
        #expect(report.psnr >= 80, "a spec-faithful renderer lands 87–101 dB")
        #expect(report.fractionWithinOne >= 0.995)
        #expect(abs(report.meanSignedDifference) <= 0.25)
        #expect(report.meetsGoldenThresholds)
        // camera.json stats: 4721 splats in view (the reference counts before its alpha test; the
        // exact o < 1/255 cull removes the 40 faint ones up front), coverage 0.587.
        let faint = decoded.scene.alpha.filter { $0 < 1.0 / 255.0 }.count
        #expect(faint == 40)
        #expect(result.stats.visibleSplats == 4721 - faint)
        #expect(abs(result.coverage - 0.587) < 0.002)
    }
}
