import Foundation
import SplatCore
import SplatRender

/// A camera orbit about the framed centre (`rendering.md` 11 step 5): every frame at the same
/// elevation and distance, azimuths θₖ = θ₀ + 360°·k/N, turning about the framing's up axis
/// (+Y of the render frame unless a camera up is given).
///
/// With the defaults (θ₀ = 35°, elevation 20°) frame 0 is exactly the automatic view `render`
/// uses when no camera is given. SPZ safe-orbit hints, when the scene has them and its values
/// were not converted, clamp the elevation into [elevationMin, elevationMax] and keep the camera
/// at least `radiusMin` from the centre.
public struct Turntable: Sendable, Equatable {
    /// Most frames one turntable may have (a guard against absurd requests).
    public static let maxFrames = 3600
    public static let defaultFrames = 36
    public static let defaultElevationDegrees = AutoFramer.defaultElevationDegrees
    public static let defaultStartAzimuthDegrees = AutoFramer.defaultAzimuthDegrees

    /// Centre, radius, up and the orbit distance (after the hints' minimum radius).
    public var framing: Framing
    public var frames: Int
    /// The elevation used, after clamping to the hints.
    public var elevationDegrees: Double
    /// The elevation asked for.
    public var requestedElevationDegrees: Double
    public var startAzimuthDegrees: Double
    public var fovYDegrees: Double
    /// Whether SPZ safe-orbit hints shaped the orbit.
    public var hintsApplied: Bool
    /// What the hints changed, for report warnings.
    public var notes: [String]

    /// Plans an orbit of `frames` frames around `framing`.
    ///
    /// - Parameters:
    ///   - hints: the scene's safe-orbit hints; pass nil when the scene's values were converted
    ///     (the hints describe elevations about the stored frame's axes).
    /// - Throws: `invalidArgument` for a frame count outside 1…`maxFrames` or a non-finite angle.
    public init(framing: Framing, frames: Int = Turntable.defaultFrames,
                elevationDegrees: Double = Turntable.defaultElevationDegrees,
                startAzimuthDegrees: Double = Turntable.defaultStartAzimuthDegrees, fovYDegrees: Double,
                hints: CameraHints? = nil) throws(SplatError) {
        guard (1...Self.maxFrames).contains(frames) else {
            throw SplatError(.invalidArgument, "\(frames) turntable frames; expected 1…\(Self.maxFrames)", field: "frames")
        }
        guard elevationDegrees.isFinite, startAzimuthDegrees.isFinite, fovYDegrees.isFinite else {
            throw SplatError(.invalidArgument, "turntable angles must be finite", field: "elevation")
        }
        self.framing = framing
        self.frames = frames
        self.requestedElevationDegrees = elevationDegrees
        self.startAzimuthDegrees = startAzimuthDegrees
        self.fovYDegrees = fovYDegrees
        var elevation = elevationDegrees
        var notes: [String] = []
        var applied = false
        if let hints, hints.elevationMin.isFinite, hints.elevationMax.isFinite, hints.elevationMin <= hints.elevationMax {
            applied = true
            let low = Double(hints.elevationMin) * 180 / .pi, high = Double(hints.elevationMax) * 180 / .pi
            let clamped = min(max(elevation, low), high)
            if clamped != elevation {
                notes.append("elevation \(Self.degrees(elevation))° clamped to \(Self.degrees(clamped))° by the file's safe-orbit hints (\(Self.degrees(low))°…\(Self.degrees(high))°)")
                elevation = clamped
            }
        }
        if let hints, hints.radiusMin.isFinite, hints.radiusMin > 0 {
            applied = true
            if Double(hints.radiusMin) > self.framing.distance {
                notes.append("orbit distance \(Self.degrees(self.framing.distance)) raised to the file's safe-orbit minimum radius \(hints.radiusMin)")
                self.framing.distance = Double(hints.radiusMin)
            }
        }
        self.elevationDegrees = elevation
        self.hintsApplied = applied
        self.notes = notes
    }

    /// Azimuth of frame `k`: θ₀ + 360°·k/N. Written so that equal fractions k/N give bit-identical
    /// angles (360·k is exact; the quotient is correctly rounded), which lets a contact sheet view
    /// reuse the turntable frame it coincides with.
    public func azimuthDegrees(frame k: Int) -> Double {
        Self.azimuth(start: startAzimuthDegrees, step: k, of: frames)
    }

    /// The camera of frame `k`.
    public func camera(frame k: Int) -> Camera {
        camera(azimuthDegrees: azimuthDegrees(frame: k), elevationDegrees: elevationDegrees)
    }

    /// Every frame's camera, in order.
    public var cameras: [Camera] { (0..<frames).map(camera(frame:)) }

    /// A camera on this orbit's sphere at any angles (contact-sheet rows at other elevations).
    public func camera(azimuthDegrees: Double, elevationDegrees: Double) -> Camera {
        framing.camera(azimuthDegrees: azimuthDegrees, elevationDegrees: elevationDegrees, fovYDegrees: fovYDegrees)
    }

    static func azimuth(start: Double, step k: Int, of n: Int) -> Double {
        start + Double(360 * k) / Double(n)
    }

    static func degrees(_ v: Double) -> String {
        String((v * 100).rounded() / 100)
    }

    /// The report's `orbit` object.
    public var json: JSONValue {
        .object([
            ("center", .vector(framing.center)),
            ("radius", .double(framing.radius)),
            ("distance", .double(framing.distance)),
            ("up", .vector(framing.up)),
            ("frames", .int(frames)),
            ("elevation_degrees", .double(elevationDegrees)),
            ("requested_elevation_degrees", .double(requestedElevationDegrees)),
            ("start_azimuth_degrees", .double(startAzimuthDegrees)),
            ("fov_y_degrees", .double(fovYDegrees)),
            ("camera_hints_applied", .bool(hintsApplied)),
        ])
    }
}
