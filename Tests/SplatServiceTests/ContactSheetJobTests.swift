import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport
@testable import SplatService

@Suite struct ContactSheetJobTests {
    @Test func tilesAreTheIndividualRendersDownscaled() throws {
        let settings = RenderSettings(width: 30, height: 24, maxShDegree: 0)
        let plan = SheetPlan(views: 3, elevationsDegrees: [10, 45], downscale: 2)
        let (sheet, report) = try ServiceFixtures.renderSheet(plan, settings: settings, tag: "svc-sheet")
        // 3 tiles of 15×12 per row, 2 rows, no gap.
        #expect(sheet.width == 45 && sheet.height == 24 && sheet.channels == 4)

        let orbit = try #require(report.orbit)
        let cameras = plan.cameras(on: orbit)
        #expect(cameras.count == 6)
        let layout = try ContactSheet.layout(count: 6, tileWidth: 30, tileHeight: 24, columns: 3, downscale: 2)
        var tiles: [ImageBuffer] = []
        for (j, alone) in try ServiceFixtures.tilesRenderedAlone(plan, on: orbit, settings: settings).enumerated() {
            let (x, y) = layout.origin(ofTile: j)
            let tile = ServiceFixtures.crop(sheet, x: x, y: y, width: 15, height: 12)
            #expect(tile == alone, "tile \(j)")
            tiles.append(tile)
        }
        // Rows are the two elevations, columns three azimuths: all six views differ.
        #expect(Set(tiles.map(\.pixels)).count == 6)
        #expect(abs(cameras[3].position.y - cameras[0].position.y) > 0.1, "row 2 is higher")
    }

    @Test func sheetViewsOnTheOrbitReuseTurntableFrames() throws {
        // 4 sheet views at the orbit's elevation fall on frames 0, 2, 4, 6 of 8: no extra renders.
        let dir = try Fixtures.temporaryDirectory("svc-sheet-reuse")
        let job = SceneJob(command: "turntable", input: .path(Fixtures.vector("tiny-3dgs-le.ply")),
                           view: ViewRequest(settings: RenderSettings(width: 16, height: 16)), orbit: OrbitOptions(frames: 8),
                           framesDirectory: dir.appendingPathComponent("f").path,
                           sheet: SheetOutput(path: dir.appendingPathComponent("s.png").path, plan: SheetPlan(views: 4)))
        let report = job.run().report
        #expect(report.succeeded, "\(String(describing: report.error))")
        #expect(report.renderStats?.views == 8)
        let orbit = try #require(report.orbit)
        let cameras = SheetPlan(views: 4).cameras(on: orbit)
        for c in 0..<4 { #expect(cameras[c] == orbit.camera(frame: 2 * c)) }
    }

    @Test func badSheetPlansAreRefused() {
        #expect(throws: SplatError.self) { try SheetPlan(views: 0).validate() }
        #expect(throws: SplatError.self) { try SheetPlan(views: SheetPlan.maxViews + 1).validate() }
        #expect(throws: SplatError.self) { try SheetPlan(elevationsDegrees: []).validate() }
        #expect(throws: SplatError.self) { try SheetPlan(elevationsDegrees: [90]).validate() }
        #expect(throws: SplatError.self) { try SheetPlan(downscale: 0).validate() }
    }
}
