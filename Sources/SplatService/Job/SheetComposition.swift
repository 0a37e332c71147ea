import SplatCore
import SplatImage

extension JobExecution {
    /// `tiles` (in `SheetPlan.cameras` order) placed in the plan's grid (`SheetPlan`'s layout
    /// rule): the cells no tile takes and the gutters are the background colour, or transparent
    /// without one.
    static func composeSheet(_ tiles: [ImageBuffer], plan: SheetPlan, cells: Int,
                             background: SIMD3<Float>?) throws(SplatError) -> ImageBuffer {
        guard let first = tiles.first, cells >= tiles.count else {
            throw SplatError(.invalidArgument, "a contact sheet of \(cells) cells cannot hold \(tiles.count) views", field: "sheet_views")
        }
        // The byte the renderer writes where nothing covers the background.
        let fill = background.map { b in [b.x, b.y, b.z].map { UInt8((min(max($0, 0), 1) * 255 + 0.5).rounded(.down)) } }
        let pixel = fill.map { first.channels == 4 ? $0 + [255] : $0 } ?? [UInt8](repeating: 0, count: first.channels)
        var blank = [UInt8](repeating: 0, count: first.width * first.height * first.channels)
        if pixel.contains(where: { $0 != 0 }) {
            for p in stride(from: 0, to: blank.count, by: first.channels) {
                for k in 0..<first.channels { blank[p + k] = pixel[k] }
            }
        }
        let empty = ImageBuffer(width: first.width, height: first.height, channels: first.channels, pixels: blank)
        var grid = [ImageBuffer](repeating: empty, count: cells)
        for (j, tile) in tiles.enumerated() { grid[plan.cell(ofTile: j)] = tile }
        return try ContactSheet.compose(grid, columns: plan.gridColumns, gap: plan.gutter, background: fill)
    }
}
