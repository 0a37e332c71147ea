import Foundation
import SplatCore
import SplatFormats
import SplatRender
@testable import SplatService
import Testing
import TestSupport

/// `SceneLoader.load` estimates up while an SPZ v4 file's SH stream still inflates, on one thread
/// (`SPZDecoder.decode(geometryReady:)`); every other input is estimated after its decode. Either
/// way the estimate and the frame decision are those of the decoded scene, on all cores.
@Suite struct SceneLoaderEarlyEstimateTests {
    @Test(arguments: ["spz/biker.spz", "spz/reference/adobe-SanitySplats.v4.spz", "spz/reference/biker.v3.spz",
                      "ply/gs3d-pr477-lod1_tile_0_0.5x.ply"])
    func theEstimateIsTheDecodedScenes(_ name: String) throws {
        let path = Fixtures.corpusFile(name)
        var options = LoadOptions()
        options.shStorage = .quantized
        let loaded = try SceneLoader.load(.path(path), options: options)
        let stored = try SplatFile.decode(path: path, sh: .quantized).scene
        let expected = UpEstimator.estimate(stored, hints: UpHints(scene: stored), threads: nil)
        #expect(loaded.upEstimate == expected)
        #expect(loaded.decision == FrameDecision.decide(SceneLoader.inferredFacts(stored, options: options).0, options: options.frame))
    }

    /// The rule counts SH bytes: 16 MiB of Float32 SH at degree 3 (45 floats, 180 bytes a splat)
    /// is 93,207 splats, where 16 MiB of 8-bit codes would take four times as many.
    @Test func theEarlyEstimateWaitsFor16MiBOfSHBytes() {
        #expect(!SceneLoader.hidesEarlyEstimate(SplatScene(count: 93_206, shDegree: 3)))
        #expect(SceneLoader.hidesEarlyEstimate(SplatScene(count: 93_207, shDegree: 3)))
        #expect(!SceneLoader.hidesEarlyEstimate(SplatScene(count: 1_000_000, shDegree: 0)))
    }
}
