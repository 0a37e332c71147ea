import SplatCore
import SplatRender

/// The views of a contact sheet: `views` azimuths per row, evenly spaced from the orbit's start
/// azimuth (θ₀ + 360°·c/views), one row per elevation. Each view is rendered at the job's full
/// resolution, then shrunk by `downscale` with `ImageBuffer.downscaled(by:)`; the tiles are laid
/// out by `ContactSheet` with no gap, row r holding elevation r, column c azimuth c.
///
/// A sheet tile is therefore ⌈W/downscale⌉ × ⌈H/downscale⌉ and the sheet is `views` tiles wide
/// and `elevations.count` tiles tall.
public struct SheetPlan: Sendable, Equatable {
    public static let defaultViews = 8
    public static let defaultDownscale = 2
    public static let maxViews = 64
    public static let maxRows = 8

    /// Views per row (azimuth steps).
    public var views: Int
    /// One row per elevation, in degrees; nil = the orbit's elevation (one row).
    public var elevationsDegrees: [Double]?
    /// Integer shrink factor per tile.
    public var downscale: Int

    public init(views: Int = SheetPlan.defaultViews, elevationsDegrees: [Double]? = nil,
                downscale: Int = SheetPlan.defaultDownscale) {
        self.views = views
        self.elevationsDegrees = elevationsDegrees
        self.downscale = downscale
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
        ]
    }
}
