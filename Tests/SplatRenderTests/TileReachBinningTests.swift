import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport
@testable import SplatRender

/// Binning narrows each splat's rectangle to the tiles holding a pixel centre within its row and
/// column reaches (`Preprocessor.reachedTiles`): every binned pair must reach a pixel, and the
/// image must stay the one evaluating every pixel gives.
@Suite struct TileReachBinningTests {
    static func fruit() throws -> SplatScene {
        try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
    }

    /// The golden example's camera, and a close, oblique one (large, elongated footprints).
    static let cameras = [
        Camera(position: SIMD3(0.750833, 0.115304, -1.475266), target: SIMD3(0.750833, 0.115304, -2.136216), up: SIMD3(0, -1, 0)),
        Camera(position: SIMD3(0.2, 0.5, -1.7), target: SIMD3(0.9, 0.1, -2.3), up: SIMD3(0, -1, 0), fovYDegrees: 80),
    ]

    /// Pairs whose tile has no pixel centre within the splat's reaches (plus the narrowing's
    /// margin); the image is a whole number of tiles, so every tile has 16 columns and rows.
    static func unreachedPairs(_ out: Preprocessor.Output) -> (unreached: Int, pairs: Int) {
        var unreached = 0, pairs = 0
        for c in 0..<out.visibleInChunk.count {
            for slot in (c * Preprocessor.chunkSize)..<(c * Preprocessor.chunkSize + out.visibleInChunk[c]) {
                let s = out.projected[slot], rect = out.rects[slot]
                @inline(__always) func gap(_ centre: Float, _ tile: Int) -> Double {
                    let first = Double(16 * tile) + 0.5, last = first + 15
                    return max(0, first - Double(centre), Double(centre) - last)
                }
                for ty in Int(rect[1])..<Int(rect[3]) {
                    for tx in Int(rect[0])..<Int(rect[2]) {
                        pairs += 1
                        let slackX = 0.02 + 1e-5 * (abs(Double(s.u)) + Double(s.columnReach))
                        let slackY = 0.02 + 1e-5 * (abs(Double(s.v)) + Double(s.rowReach))
                        if gap(s.u, tx) > Double(s.columnReach) + slackX || gap(s.v, ty) > Double(s.rowReach) + slackY {
                            unreached += 1
                        }
                    }
                }
            }
        }
        return (unreached, pairs)
    }

    @Test func everyBinnedPairReachesAPixelCentre() throws {
        let scene = try Self.fruit()
        let (width, height) = (384, 288)
        for (index, camera) in Self.cameras.enumerated() {
            let view = try ViewProjection(camera: camera, width: width, height: height)
            let renderScene = RenderScene(scene: scene, threads: 2)
            let narrowed = Preprocessor(scene: renderScene, view: view, antialiased: false, shDegree: 3).run(threads: 2)
            var inria = Preprocessor(scene: renderScene, view: view, antialiased: false, shDegree: 3)
            inria.exhaustive = true
            let wide = inria.run(threads: 2)
            let (unreached, pairs) = Self.unreachedPairs(narrowed)
            let before = Self.unreachedPairs(wide)
            #expect(pairs == narrowed.pairCount)
            #expect(pairs > 10_000, "camera \(index): \(pairs) pairs")
            #expect(unreached == 0, "camera \(index): \(unreached) of \(pairs) binned pairs reach no pixel centre")
            // INRIA's rectangle alone bins many pairs that reach nothing: the check above has teeth.
            #expect(before.unreached > before.pairs / 10, "camera \(index): \(before.unreached) of \(before.pairs)")
            #expect(narrowed.visibleCount <= wide.visibleCount)
        }
    }

    @Test func narrowedBinningLeavesTheImageAsEveryPixelGives() throws {
        let scene = try Self.fruit()
        // Small: evaluating every pixel of every INRIA pair is slow in a debug build.
        let (width, height) = (160, 128)
        for (index, camera) in Self.cameras.enumerated() {
            for antialiased in [false, true] {
                let settings = RenderSettings(width: width, height: height, background: antialiased ? nil : SIMD3(0.1, 0.2, 0.3),
                                              antialiased: antialiased, threads: 2)
                let fast = try Renderer(scene: scene, threads: 2).render(camera: camera, settings: settings)
                let reference = Renderer(scene: scene, threads: 2)
                reference.exhaustive = true
                let slow = try reference.render(camera: camera, settings: settings)
                #expect(fast.image == slow.image, "camera \(index) antialiased \(antialiased)")
                #expect(fast.coverage == slow.coverage)
                #expect(fast.stats.tilePairs < slow.stats.tilePairs)
            }
        }
    }
}
