import Foundation
import Testing
import SplatCore
@testable import SplatRender

/// `formats-gltf.md` 12.4: a linear-light scene blends as usual, composites over the background
/// in linear light, and encodes the result with the sRGB OETF before quantising; alpha is not a
/// colour and stays as it is.
@Suite struct ColorSpaceRenderTests {
    @Test func transferFunctionValues() {
        #expect(SplatColorSpace.srgbEncoded(0) == 0 && abs(SplatColorSpace.srgbEncoded(1) - 1) < 1e-6)
        #expect(abs(SplatColorSpace.srgbEncoded(0.002) - 0.02584) < 1e-5)        // the linear toe
        #expect(abs(SplatColorSpace.srgbEncoded(0.5) - 0.735357) < 1e-5)
        #expect(SplatColorSpace.srgbEncoded(-1) == 0 && SplatColorSpace.srgbEncoded(.nan) == 0)
        #expect(SplatColorSpace.srgbEncoded(7) == SplatColorSpace.srgbEncoded(1))
        for level in stride(from: Float(0), through: 1, by: 1 / 255) {
            #expect(abs(SplatColorSpace.srgbEncoded(SplatColorSpace.srgbDecoded(level)) - level) < 1e-5)
        }
    }

    /// The stopping-splat scene of `RendererTests`: α is capped at 0.99, so S = 0.99·red and
    /// T = 0.01 exactly; the blue background is 1 in sRGB and in linear light.
    @Test func linearSceneEncodesTheComposite() throws {
        let red = (SIMD3<Float>(1, 0, 0) - 0.5) / SphericalHarmonics.c0
        let splats = [TestScenes.Splat(position: SIMD3(0, 0, 2), logScale: SIMD3(repeating: log(0.5)), alpha: 1, dc: red)]
        let settings = RenderSettings(width: 32, height: 32, background: SIMD3(0, 0, 1))
        let srgb = try Renderer(scene: TestScenes.scene(splats), threads: 1).render(camera: TestScenes.identityCamera, settings: settings)
        let scene = TestScenes.scene(splats)
        scene.colorSpace = .linearRec709Display
        let linear = try Renderer(scene: scene, threads: 1).render(camera: TestScenes.identityCamera, settings: settings)
        let centre = (16 * 32 + 16) * 3
        #expect(Array(srgb.image.pixels[centre..<centre + 3]) == [252, 0, 3])
        // 255·OETF(0.99) = 253.88 → 254; 255·OETF(0.01) = 25.46 → 25 (sRGB: 252 and 3).
        #expect(Array(linear.image.pixels[centre..<centre + 3]) == [254, 0, 25])
        #expect(linear.coverage == srgb.coverage)
    }

    @Test func greyBackgroundRoundTripsAndAlphaIsNotEncoded() throws {
        let splat = TestScenes.Splat(position: SIMD3(0, 0, 3), logScale: SIMD3(repeating: log(0.3)), alpha: 0.5,
                                     dc: (SIMD3<Float>(0.2, 0.6, 1.0) - 0.5) / SphericalHarmonics.c0)
        let grey = RenderSettings(width: 32, height: 32, background: SIMD3(repeating: 0.5))
        let scene = TestScenes.scene([splat])
        scene.colorSpace = .linearRec709Display
        let renderer = Renderer(scene: scene, threads: 1)
        let onGrey = try renderer.render(camera: TestScenes.identityCamera, settings: grey)
        #expect(Array(onGrey.image.pixels[0..<3]) == [128, 128, 128])

        let rgba = try renderer.render(camera: TestScenes.identityCamera, settings: RenderSettings(width: 32, height: 32))
        let plain = try Renderer(scene: TestScenes.scene([splat]), threads: 1)
            .render(camera: TestScenes.identityCamera, settings: RenderSettings(width: 32, height: 32))
        let centre = (16 * 32 + 16) * 4
        let px = Array(rgba.image.pixels[centre..<centre + 4])
        // The un-premultiplied colour (0.2, 0.6, 1.0) encoded: 124, 203, 255.
        #expect(abs(Int(px[0]) - 124) <= 1 && abs(Int(px[1]) - 203) <= 1 && px[2] == 255, "\(px)")
        // Alpha of every pixel is the coverage, the same as for the sRGB scene.
        for p in stride(from: 3, to: rgba.image.pixels.count, by: 4) {
            #expect(rgba.image.pixels[p] == plain.image.pixels[p])
        }
    }
}
