import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport
@testable import SplatService

@Suite struct TurntableJobTests {
    @Test func frameZeroIsTheRenderOfTheSameCameraAndFramesDiffer() throws {
        let dir = try Fixtures.temporaryDirectory("svc-turntable")
        let frames = dir.appendingPathComponent("frames").path
        let view = ViewRequest(settings: RenderSettings(width: 64, height: 48, maxShDegree: 1))
        let turntable = SceneJob(command: "turntable", input: .path(ServiceFixtures.fruit), view: view,
                                 orbit: OrbitOptions(frames: 5), framesDirectory: frames).run()
        #expect(turntable.report.succeeded, "\(String(describing: turntable.report.error))")
        let names = try FileManager.default.contentsOfDirectory(atPath: frames).sorted()
        #expect(names == (0..<5).map { SceneJob.frameFileName($0, of: 5) })
        #expect(names.first == "frame_000.png")

        // Frame 0 rendered alone with the same camera gives the same bytes.
        let orbit = try #require(turntable.report.orbit)
        let camera = orbit.camera(frame: 0)
        var single = view
        single.camera = CameraRequest(position: camera.position, target: camera.target, up: camera.up,
                                      fovYDegrees: camera.fovYDegrees)
        let render = SceneJob(input: .path(ServiceFixtures.fruit), view: single, image: .caller).run()
        let frame0 = try ServiceFixtures.bytes(frames + "/frame_000.png")
        #expect(render.imageBytes == frame0)
        // With the default orbit, frame 0 is also exactly the automatic view of a plain render.
        let auto = SceneJob(input: .path(ServiceFixtures.fruit), view: view, image: .caller).run()
        #expect(auto.imageBytes == frame0)

        // Every frame shows a good part of the scene, and no two frames are the same picture.
        var seen: [[UInt8]] = []
        for name in names {
            let image = try PNGReader.read(path: frames + "/" + name)
            #expect(image.width == 64 && image.height == 48 && image.channels == 4)
            let coverage = ServiceFixtures.alphaCoverage(image)
            // 0.08, not 0.15: the 5 % padding band every view keeps empty (`--padding`) leaves
            // the fruit 0.107 of a 512² frame in its thinnest view (Documentation/thumbnails.md).
            #expect(coverage > 0.08 && coverage < 0.95, "\(name): coverage \(coverage)")
            #expect(!seen.contains(image.pixels), "\(name) repeats an earlier frame")
            seen.append(image.pixels)
        }
        let stats = try #require(turntable.report.renderStats)
        #expect(stats.views == 5)
        #expect(turntable.report.outputs.first?.role == .frames && turntable.report.outputs.first?.frames == 5)
    }

    @Test func frameNamesWidenPastAThousandFrames() {
        #expect(SceneJob.frameFileName(7, of: 36) == "frame_007.png")
        #expect(SceneJob.frameFileName(999, of: 1000) == "frame_999.png")
        #expect(SceneJob.frameFileName(12, of: 1001) == "frame_0012.png")
    }

    @Test func orbitCamerasTurnAboutUpAtOneElevationAndDistance() throws {
        let framing = Framing(center: SIMD3(1, 2, 3), radius: 0.5, distance: 2, up: SIMD3(0, 1, 0))
        let orbit = try Turntable(framing: framing, frames: 4, elevationDegrees: 30, startAzimuthDegrees: 0, fovYDegrees: 50)
        for k in 0..<4 {
            let c = orbit.camera(frame: k)
            let offset = c.position - framing.center
            #expect(abs((offset * offset).sum().squareRoot() - 2) < 1e-12)
            #expect(abs(offset.y - 2 * sin(30 * Double.pi / 180)) < 1e-12)
            #expect(c.target == framing.center && c.up == SIMD3(0, 1, 0))
        }
        // Azimuth 0 looks from +Z, 90° from +X (rendering.md 11 step 5).
        #expect(orbit.camera(frame: 0).position.z > 3 && abs(orbit.camera(frame: 0).position.x - 1) < 1e-12)
        #expect(orbit.camera(frame: 1).position.x > 1 && abs(orbit.camera(frame: 1).position.z - 3) < 1e-12)
        #expect(orbit.azimuthDegrees(frame: 3) == 270)
        #expect(throws: SplatError.self) { try Turntable(framing: framing, frames: Turntable.maxFrames + 1, fovYDegrees: 50) }
        #expect(throws: SplatError.self) { try Turntable(framing: framing, frames: 0, fovYDegrees: 50) }
    }

    @Test func safeOrbitHintsClampElevationAndDistance() throws {
        let framing = Framing(center: .zero, radius: 1, distance: 2, up: SIMD3(0, 1, 0))
        let hints = CameraHints(elevationMin: -0.25, elevationMax: 0.25, radiusMin: 3)
        let orbit = try Turntable(framing: framing, frames: 2, elevationDegrees: 20, fovYDegrees: 50, hints: hints)
        #expect(abs(orbit.elevationDegrees - Double(Float(0.25)) * 180 / Double.pi) < 1e-9)
        #expect(orbit.framing.distance == 3)
        #expect(orbit.hintsApplied && orbit.notes.count == 2)
        let inside = try Turntable(framing: framing, frames: 2, elevationDegrees: 5, fovYDegrees: 50, hints: hints)
        #expect(inside.elevationDegrees == 5 && inside.notes.count == 1)
    }

    @Test func hintsOfAConvertedSceneAreNotApplied() throws {
        // sh1-ext-v4.spz declares RDF and carries safe-orbit hints (−0.25, 1.0 rad, radius 2.5):
        // RDF → RUB is a half turn, so the stored elevations no longer mean the same thing.
        let dir = try Fixtures.temporaryDirectory("svc-hints")
        let job = SceneJob(command: "turntable", input: .path(Fixtures.vector("sh1-ext-v4.spz")),
                           view: ViewRequest(settings: RenderSettings(width: 16, height: 16)), orbit: OrbitOptions(frames: 2),
                           framesDirectory: dir.appendingPathComponent("f").path)
        let report = job.run().report
        #expect(report.succeeded, "\(String(describing: report.error))")
        #expect(report.orbit?.hintsApplied == false)
        #expect(report.warnings.contains { $0.contains("safe-orbit hints were not applied") })
        // Read in its stored frame (no conversion) the hints apply: 20° is inside the range, and
        // the framing distance is already past the minimum radius.
        var same = job
        same.load.frame.sourceFrame = .rdf
        same.load.frame.targetFrame = .rdf
        same.framesDirectory = dir.appendingPathComponent("g").path
        let stored = same.run().report
        #expect(stored.succeeded, "\(String(describing: stored.error))")
        #expect(stored.orbit?.hintsApplied == true)
        #expect(stored.orbit?.elevationDegrees == 20)
        #expect((stored.orbit?.framing.distance ?? 0) >= 2.5)
    }

    @Test func animatedPreviewDecodesToTheFramesRendered() throws {
        let dir = try Fixtures.temporaryDirectory("svc-anim")
        let frames = dir.appendingPathComponent("frames").path
        let webp = dir.appendingPathComponent("preview.webp").path
        let job = SceneJob(command: "turntable", input: .path(ServiceFixtures.fruit),
                           view: ViewRequest(settings: RenderSettings(width: 40, height: 32, maxShDegree: 0)), orbit: OrbitOptions(frames: 4),
                           framesDirectory: frames,
                           animation: AnimationOutput(path: webp, options: AnimatedWebPWriter.Options(frameDurationMs: 80)))
        let report = job.run().report
        #expect(report.succeeded, "\(String(describing: report.error))")
        let animation = try AnimatedWebPReader.read(path: webp)
        #expect(animation.frameCount == 4)
        #expect(animation.canvasWidth == 40 && animation.canvasHeight == 32)
        #expect(animation.loopCount == 0)
        #expect(animation.durationsMs == [80, 80, 80, 80])
        // Lossless by default: each animation frame is the PNG frame, pixel for pixel.
        for k in 0..<4 {
            let png = try PNGReader.read(path: frames + "/" + SceneJob.frameFileName(k, of: 4))
            #expect(animation.frames[k] == png, "frame \(k)")
        }
        let record = try #require(report.outputs.first { $0.role == .animation })
        let size = try ServiceFixtures.bytes(webp).count
        #expect(record.frames == 4 && record.bytes == size)
    }

    @Test func aTimedOutJobLeavesNoOutputs() throws {
        let dir = try Fixtures.temporaryDirectory("svc-timeout")
        let frames = dir.appendingPathComponent("frames").path
        let job = SceneJob(command: "turntable", input: .path(ServiceFixtures.fruit), view: ViewRequest(settings: RenderSettings(width: 16, height: 16)),
                           orbit: OrbitOptions(frames: 3), framesDirectory: frames,
                           sheet: SheetOutput(path: dir.appendingPathComponent("s.png").path), timeoutSeconds: 1e-9)
        let report = job.run().report
        #expect(report.status == "timeout")
        #expect(report.error?.file == ServiceFixtures.fruit)
        #expect(report.outputs.isEmpty)
        #expect(ServiceFixtures.files(under: dir).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: frames))
    }

    @Test func aFailureAfterSomeFramesRemovesThem() throws {
        // The sheet's path is a folder, so the job fails at its last write, after every frame.
        let dir = try Fixtures.temporaryDirectory("svc-cleanup")
        let frames = dir.appendingPathComponent("frames").path
        // Stopped after the second of three frames was rendered (and written): the job takes back
        // what it wrote.
        let token = CancellationToken()
        let job = SceneJob(command: "turntable", input: .path(Fixtures.vector("tiny-3dgs-le.ply")),
                           view: ViewRequest(settings: RenderSettings(width: 16, height: 16)), orbit: OrbitOptions(frames: 3),
                           framesDirectory: frames, sheet: SheetOutput(path: dir.appendingPathComponent("sheet.png").path,
                                                                       plan: SheetPlan(views: 3)),
                           cancellation: token)
        let report = job.run(progress: { event in
            if event.stage == "render" && event.done == 2 { token.cancel(.cancelled) }
        }).report
        #expect(report.status == "cancelled")
        #expect(report.failedStage == .render)
        #expect(!FileManager.default.fileExists(atPath: frames))
        #expect(ServiceFixtures.files(under: dir).isEmpty)
    }

    @Test func anOutputThatIsAFolderIsRefusedBeforeDecoding() throws {
        let dir = try Fixtures.temporaryDirectory("svc-blocked")
        let blocked = dir.appendingPathComponent("sheet.png")
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: false)
        let job = SceneJob(command: "turntable", input: .path(Fixtures.vector("tiny-3dgs-le.ply")),
                           view: ViewRequest(settings: RenderSettings(width: 16, height: 16)), orbit: OrbitOptions(frames: 3),
                           framesDirectory: dir.appendingPathComponent("frames").path,
                           sheet: SheetOutput(path: blocked.path, plan: SheetPlan(views: 3)))
        let report = job.run().report
        #expect(report.status == "io" && report.failedStage == .output)
        #expect(report.message.contains("sheet.png") && report.message.contains("folder"))
        #expect(report.header == nil && report.renderStats == nil)
        #expect(ServiceFixtures.files(under: dir).isEmpty)
    }

    @Test func anAnimationTooLargeToHoldIsRefusedBeforeRendering() throws {
        let dir = try Fixtures.temporaryDirectory("svc-anim-big")
        let job = SceneJob(command: "turntable", input: .path(Fixtures.vector("minimal-v4.spz")),
                           view: ViewRequest(settings: RenderSettings(width: 8192, height: 8192)), orbit: OrbitOptions(frames: 5),
                           animation: AnimationOutput(path: dir.appendingPathComponent("a.webp").path))
        // Refused by its memory estimate (five 8192² frames held) before decoding …
        let report = job.run().report
        #expect(report.status == "too_large" && report.failedStage == .input)
        #expect(report.error?.field == "memory-budget")
        #expect((report.verdict?.estimate?.outputBytes ?? 0) > 5 * 8192 * 8192 * 4)
        #expect(report.renderStats == nil)
        // … and without a budget, by the pixel budget for held frames, before rendering.
        var unbudgeted = job
        unbudgeted.memoryBudget = nil
        let second = unbudgeted.run().report
        #expect(second.status == "too_large" && second.failedStage == .render)
        #expect(second.renderStats == nil)
    }
}
