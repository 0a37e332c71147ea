import SplatCore
import SplatRender

/// The views of a contact sheet: `views` azimuths per elevation, evenly spaced from the orbit's
/// start azimuth (θ₀ + 360°·c/views). Each view is rendered at the job's full resolution, then
/// shrunk by `downscale` with `ImageBuffer.downscaled(by:)`, and laid out by `ContactSheet`.
///
/// The layout rule: the sheet is `gridColumns` tiles wide (`columns`, default
/// `defaultColumns`, never more than `views`). Each elevation starts a new grid row and fills
/// ⌈views / gridColumns⌉ rows left to right, top to bottom, in azimuth order; cells left over at
/// the end of an elevation's last row stay empty. So 8 views at one elevation are 4×2 by default,
/// 8 views at 3 elevations 4×6, and `columns` = `views` gives the one-row-per-elevation strip.
/// Tiles are `gutter` pixels apart (no outer margin); gutters and empty cells take the
/// background colour (transparent without one). A tile is ⌈W/downscale⌉ × ⌈H/downscale⌉.
public struct SheetPlan: Sendable, Equatable {
    public static let defaultViews = 8
    public static let defaultDownscale = 2
    public static let maxViews = 64
    public static let maxRows = 8
    /// Tiles per grid row unless `columns` says otherwise.
    public static let defaultColumns = 4
    public static let defaultGutter = 0
    public static let maxGutter = 1024

    /// Views per row (azimuth steps).
    public var views: Int
    /// One row per elevation, in degrees; nil = the orbit's elevation (one row).
    public var elevationsDegrees: [Double]?
    /// Integer shrink factor per tile.
    public var downscale: Int
    /// Tiles per grid row; nil: `defaultColumns` (capped at `views` either way).
    public var columns: Int?
    /// Pixels between tiles.
    public var gutter: Int

    public init(views: Int = SheetPlan.defaultViews, elevationsDegrees: [Double]? = nil,
                downscale: Int = SheetPlan.defaultDownscale, columns: Int? = nil, gutter: Int = SheetPlan.defaultGutter) {
        self.views = views
        self.elevationsDegrees = elevationsDegrees
        self.downscale = downscale
        self.columns = columns
        self.gutter = gutter
    }

    /// Tiles per grid row.
    public var gridColumns: Int { max(1, min(columns ?? Self.defaultColumns, views)) }
    /// Grid rows each elevation takes.
    public var rowsPerElevation: Int { (views + gridColumns - 1) / gridColumns }

    /// Grid cells of the sheet on `orbit` (tiles and empty cells).
    public func cellCount(on orbit: Turntable) -> Int { rows(on: orbit).count * rowsPerElevation * gridColumns }

    /// The grid cell (row-major) of tile `j` of `cameras(on:)`.
    public func cell(ofTile j: Int) -> Int {
        (j / views) * rowsPerElevation * gridColumns + j % views
    }

    /// Checks the numbers before anything is rendered.
    public func validate() throws(SplatError) {
        guard (1...Self.maxViews).contains(views) else {
            throw SplatError(.invalidArgument, "\(views) sheet views; expected 1…\(Self.maxViews)", field: "sheet_views")
        }
        if let rows = elevationsDegrees {
            guard (1...Self.maxRows).contains(rows.count), rows.allSatisfy({ $0.isFinite && abs($0) < 90 }) else {
                throw SplatError(.invalidArgument, "sheet elevations \(rows): expected 1…\(Self.maxRows) angles strictly between -90 and 90", field: "sheet_elevations")
            }
        }
        if let columns, !(1...Self.maxViews).contains(columns) {
            throw SplatError(.invalidArgument, "\(columns) sheet columns; expected 1…\(Self.maxViews)", field: "sheet_columns")
        }
        guard (0...Self.maxGutter).contains(gutter) else {
            throw SplatError(.invalidArgument, "sheet gutter \(gutter) px; expected 0…\(Self.maxGutter)", field: "sheet_gutter")
        }
        guard downscale >= 1 else {
            throw SplatError(.invalidArgument, "sheet downscale \(downscale) must be at least 1", field: "sheet_downscale")
        }
    }

    /// The row elevations actually used with `orbit`.
    public func rows(on orbit: Turntable) -> [Double] {
        elevationsDegrees ?? [orbit.elevationDegrees]
    }

    /// Tile cameras in sheet order (row by row). A view on the orbit's own elevation whose
    /// azimuth fraction equals a turntable frame's is the same camera, bit for bit.
    public func cameras(on orbit: Turntable) -> [Camera] {
        rows(on: orbit).flatMap { elevation in
            (0..<views).map { c in
                orbit.camera(azimuthDegrees: Turntable.azimuth(start: orbit.startAzimuthDegrees, step: c, of: views),
                             elevationDegrees: elevation)
            }
        }
    }

    /// The report's description of the sheet.
    func json(on orbit: Turntable) -> [(String, JSONValue)] {
        [
            ("views", .int(views)),
            ("elevations_degrees", .array(rows(on: orbit).map { .double($0) })),
            ("downscale", .int(downscale)),
            ("columns", .int(gridColumns)),
            ("grid_rows", .int(rows(on: orbit).count * rowsPerElevation)),
            ("gutter", .int(gutter)),
        ]
    }
}
