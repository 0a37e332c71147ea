import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport
@testable import SplatService

/// The blank-frame guard (`CoverageGuard`): coverage on every output, the retry framing every
/// splat, `low_coverage` warnings and `--min-coverage` failing with `blank`.
@Suite struct CoverageGuardTests {
    /// 200 opaque splats 1e-4 wide packed in a 1 mm cube at the origin (98.5 % of the weight: the
    /// robust framing fits them, and they render as one sub-pixel dot), and 3 opaque splats 1 wide
    /// 10 away (1.5 %: outside the 2–98 % box, so only the every-splat framing sees them).
    static func dotAndFarBlobs() throws -> String {
        let scene = SplatScene(count: 203, shDegree: 0, zeroed: true)
        var generator = SplitMix64(seed: 17)
        for i in 0..<203 {
            let far = i >= 200
            let jitter = { Float(generator.next() % 1001) / 1000 - 0.5 }
            scene.x[i] = far ? 10 + jitter() : 0.001 * jitter()
            scene.y[i] = far ? jitter() : 0.001 * jitter()
            scene.z[i] = far ? jitter() : 0.001 * jitter()
            let logScale: Float = far ? 0 : log(1e-4)
            scene.logScaleX[i] = logScale; scene.logScaleY[i] = logScale; scene.logScaleZ[i] = logScale
            scene.rotW[i] = 1
            scene.alpha[i] = 0.95
            scene.dcR[i] = 1
        }
        let dir = try Fixtures.temporaryDirectory("svc-coverage")
        let path = dir.appendingPathComponent("dot-and-blobs.ply").path
        try PLYEncoder.write(scene, to: path)
        return path
    }

    static let small = ViewRequest(settings: RenderSettings(width: 64, height: 64))

    static func coverage(_ record: OutputRecord?) -> Double? {
        guard let record, let value = record.extra.first(where: { $0.0 == "coverage" })?.1, case .double(let c) = value else { return nil }
        return c
    }

    @Test func aBlankAutomaticViewIsFramedAgainWithEverySplat() throws {
        let path = try Self.dotAndFarBlobs()
        // The robust framing alone: the dot only.
        let loaded = try SceneLoader.load(.path(path))
        let robust = CameraRequest().resolve(for: loaded.scene, width: 64, height: 64).camera
        let alone = try Renderer(scene: loaded.scene).render(camera: robust, settings: Self.small.settings)
        #expect(alone.coverage < CoverageGuard.lowCoverage, "robust framing covers \(alone.coverage)")

        let dir = try Fixtures.temporaryDirectory("svc-coverage-retry")
        let outcome = SceneJob(input: .path(path), view: Self.small, image: .file(dir.appendingPathComponent("i.png").path)).run()
        let report = outcome.report
        #expect(report.succeeded, "\(String(describing: report.error))")
        #expect(report.framingExtent == .allSplats)
        #expect(report.warnings.contains { $0.hasPrefix("framing_retry:") }, "\(report.warnings)")
        let covered = try #require(Self.coverage(report.outputs.first))
        #expect(covered >= CoverageGuard.lowCoverage, "coverage after the retry \(covered)")
        #expect(!report.warnings.contains { $0.hasPrefix("low_coverage:") }, "\(report.warnings)")
        // The image delivered is the second framing's, with the coverage the report gives.
        let image = try PNGReader.read(path: dir.appendingPathComponent("i.png").path)
        #expect(abs(ServiceFixtures.alphaCoverage(image) - covered) < 0.01)
        #expect(report.json.serialized(pretty: false).contains("\"framing_extent\":\"all_splats\""))
    }

    @Test func aGoodFramingIsNotRetriedAndEveryOutputHasItsCoverage() throws {
        let dir = try Fixtures.temporaryDirectory("svc-coverage-ok")
        let job = SceneJob(command: "turntable", input: .path(ServiceFixtures.fruit), view: Self.small,
                           orbit: OrbitOptions(frames: 4), framesDirectory: dir.appendingPathComponent("f").path,
                           sheet: SheetOutput(path: dir.appendingPathComponent("s.png").path, plan: SheetPlan(views: 4)))
        let report = job.run().report
        #expect(report.succeeded, "\(String(describing: report.error))")
        #expect(report.framingExtent == .robust)
        #expect(report.warnings.allSatisfy { !$0.hasPrefix("framing_retry:") && !$0.hasPrefix("low_coverage:") })
        let stats = try #require(report.renderStats)
        for record in report.outputs {
            let c = try #require(Self.coverage(record), "\(record.role)")
            // Frames and sheet tiles are the same 4 views: the least of them.
            #expect(c == stats.coverageMin, "\(record.role): \(c)")
        }
    }

    @Test func anExplicitCameraLookingAwayWarnsAndMinCoverageFailsBlank() throws {
        var view = Self.small
        view.camera = CameraRequest(position: SIMD3(0, 0, 50), target: SIMD3(0, 0, 100))
        let dir = try Fixtures.temporaryDirectory("svc-coverage-blank")
        let path = dir.appendingPathComponent("away.png").path
        let warned = SceneJob(input: .path(ServiceFixtures.fruit), view: view, image: .file(path)).run().report
        #expect(warned.succeeded)
        #expect(warned.framingExtent == nil)
        #expect(warned.warnings.contains { $0.hasPrefix("low_coverage: image: no splat is visible") }, "\(warned.warnings)")
        #expect(FileManager.default.fileExists(atPath: path))

        var strict = SceneJob(input: .path(ServiceFixtures.fruit), view: view, image: .file(path + ".2.png"))
        strict.minCoverage = 0.01
        let failed = strict.run().report
        #expect(failed.status == "blank")
        #expect(failed.failedStage == .render)
        #expect(!FileManager.default.fileExists(atPath: path + ".2.png"), "a blank job keeps no output")
    }

    @Test func minCoverageAboveWhatTheSceneReachesFailsAfterTheRetry() throws {
        var job = SceneJob(input: .path(ServiceFixtures.fruit), view: Self.small, image: .caller)
        job.minCoverage = 0.99
        let report = job.run().report
        #expect(report.status == "blank")
        #expect(report.framingExtent == .allSplats, "auto-framed, so retried first")
        #expect(report.error?.message.contains("below --min-coverage 0.99") == true, "\(report.message)")
    }
}
