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

    /// `LoadOptions.upEstimate = .whenItDecides` leaves the estimate out (nil) where the frame
    /// decision does not consult it — a frame given as an option, an `--up` axis or the
    /// convention, a frame the file declares (the glTF tile: LUF) — with the same decision and
    /// scene as `.always`; where the decision consults it (biker declares nothing) it is made,
    /// and is the same estimate.
    @Test(arguments: [("spz/biker.spz", FrameOptions(), true),
                      ("spz/biker.spz", FrameOptions(sourceFrame: .rub), false),
                      ("spz/biker.spz", FrameOptions(up: .axis(.plusZ)), false),
                      ("spz/biker.spz", FrameOptions(up: .convention), false),
                      ("gltf/flywave-aerial-tile1_2.glb", FrameOptions(), false)])
    func theEstimateIsMadeOnlyWhenItDecides(_ name: String, frame: FrameOptions, decides: Bool) throws {
        let path = Fixtures.corpusFile(name)
        var always = LoadOptions(frame: frame)
        always.shStorage = .quantized
        var whenItDecides = always
        whenItDecides.upEstimate = .whenItDecides
        let reference = try SceneLoader.load(.path(path), options: always)
        let loaded = try SceneLoader.load(.path(path), options: whenItDecides)
        #expect(reference.upEstimate != nil)
        #expect(loaded.upEstimate == (decides ? reference.upEstimate : nil))
        #expect(loaded.decision == reference.decision)
        #expect(loaded.scene.count == reference.scene.count)
        for column in SplatScene.Column.allCases {
            #expect(Array(loaded.scene.column(column)) == Array(reference.scene.column(column)), "\(column)")
        }
    }

    /// The rule counts SH bytes: 16 MiB of Float32 SH at degree 3 (45 floats, 180 bytes a splat)
    /// is 93,207 splats, where 16 MiB of 8-bit codes would take four times as many.
    @Test func theEarlyEstimateWaitsFor16MiBOfSHBytes() {
        #expect(!SceneLoader.hidesEarlyEstimate(SplatScene(count: 93_206, shDegree: 3)))
        #expect(SceneLoader.hidesEarlyEstimate(SplatScene(count: 93_207, shDegree: 3)))
        #expect(!SceneLoader.hidesEarlyEstimate(SplatScene(count: 1_000_000, shDegree: 0)))
    }
}
