import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport
@testable import SplatService

/// Contact sheets as a grid (`SheetPlan`'s layout rule): columns, elevations starting rows,
/// empty cells and gutters in the background colour.
@Suite struct SheetGridTests {
    static let settings = RenderSettings(width: 20, height: 16, background: SIMD3(0.2, 0.4, 0.6), maxShDegree: 0)

    /// Renders the sheet, then checks every tile against its view rendered alone and shrunk,
    /// and every other pixel against the background.
    func check(_ plan: SheetPlan, columns: Int, gridRows: Int) throws {
        let (sheet, report) = try ServiceFixtures.renderSheet(plan, settings: Self.settings, tag: "svc-sheet-grid")
        let (tw, th, gap) = (10, 8, plan.gutter)
        #expect(sheet.width == columns * tw + (columns - 1) * gap && sheet.height == gridRows * th + (gridRows - 1) * gap,
                "\(sheet.width)×\(sheet.height)")
        #expect(sheet.channels == 3)

        let orbit = try #require(report.orbit)
        var owned = [Bool](repeating: false, count: sheet.width * sheet.height)
        for (j, alone) in try ServiceFixtures.tilesRenderedAlone(plan, on: orbit, settings: Self.settings).enumerated() {
            let cell = plan.cell(ofTile: j)
            let (x, y) = ((cell % columns) * (tw + gap), (cell / columns) * (th + gap))
            #expect(ServiceFixtures.crop(sheet, x: x, y: y, width: tw, height: th) == alone, "tile \(j) at cell \(cell)")
            for row in y..<(y + th) { for col in x..<(x + tw) { owned[row * sheet.width + col] = true } }
        }
        // Gutters and empty cells: the background, as the renderer quantises it.
        let fill: [UInt8] = [51, 102, 153]
        var others = 0
        for p in 0..<owned.count where !owned[p] {
            #expect(Array(sheet.pixels[(3 * p)..<(3 * p + 3)]) == fill, "pixel \(p)")
            others += 1
        }
        let expectedOthers = sheet.width * sheet.height - plan.cameras(on: orbit).count * tw * th
        #expect(others == expectedOthers)
        let described = try #require(report.sheet?.serialized(pretty: false))
        #expect(described.contains("\"columns\":\(columns)") && described.contains("\"grid_rows\":\(gridRows)"), "\(described)")
    }

    @Test func eightViewsAreFourByTwoByDefault() throws {
        try check(SheetPlan(), columns: 4, gridRows: 2)
    }

    @Test func columnsGutterAndElevationRows() throws {
        // 6 views in rows of 4, two elevations: each elevation takes 2 grid rows, the last two
        // cells of each are empty; 3 px gutters.
        try check(SheetPlan(views: 6, elevationsDegrees: [10, 40], columns: 4, gutter: 3), columns: 4, gridRows: 4)
        // One row per elevation when the columns are the views.
        try check(SheetPlan(views: 3, elevationsDegrees: [0, 30, 60], columns: 3), columns: 3, gridRows: 3)
    }

    @Test func layoutRule() throws {
        let plan = SheetPlan(views: 5, elevationsDegrees: [0, 45], columns: 2)
        #expect(plan.gridColumns == 2 && plan.rowsPerElevation == 3)
        #expect((0..<10).map(plan.cell(ofTile:)) == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
        #expect(SheetPlan(views: 3).gridColumns == 3, "never more columns than views")
        #expect(throws: SplatError.self) { try SheetPlan(columns: 0).validate() }
        #expect(throws: SplatError.self) { try SheetPlan(gutter: SheetPlan.maxGutter + 1).validate() }
    }
}
