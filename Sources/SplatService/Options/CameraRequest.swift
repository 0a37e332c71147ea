import Foundation
import SplatCore
import SplatRender

/// A camera as a caller gives it: any of position, target and up may be missing, and the missing
/// parts come from `AutoFramer` (the robust framing of `rendering.md` 11). All coordinates are in
/// the render frame (after the frame conversion). This is what `render --camera-*` resolves.
public struct CameraRequest: Sendable, Equatable {
    public var position: SIMD3<Double>?
    public var target: SIMD3<Double>?
    public var up: SIMD3<Double>?
    public var fovYDegrees: Double
    /// Empty band the automatic framing leaves along each edge, as a fraction of the frame
    /// (`--padding`; `AutoFramer.defaultPadding`).
    public var padding: Double
    /// Orbit angles of the automatic single view (`render --azimuth`, `--elevation`); the
    /// defaults are the automatic three-quarter view.
    public var azimuthDegrees: Double
    public var elevationDegrees: Double
    /// Multiplies the automatic framing's distance (`--distance`): 2 is twice as far.
    public var distanceFactor: Double
    /// Magnification (`--zoom`): the field of view narrows so the image shows 1/zoom of the
    /// width and height it would show at `fovYDegrees`; the camera does not move.
    public var zoom: Double
    /// A training camera instead of the automatic view (`render --view training:K|auto`); the
    /// job moves it with the frame decision. Needs `LoadOptions.cameras`.
    public var trainingView: TrainingView?

    public static let defaultDistanceFactor = 1.0
    public static let defaultZoom = 1.0

    public init(position: SIMD3<Double>? = nil, target: SIMD3<Double>? = nil, up: SIMD3<Double>? = nil,
                fovYDegrees: Double = Camera.defaultFovYDegrees, padding: Double = AutoFramer.defaultPadding,
                azimuthDegrees: Double = AutoFramer.defaultAzimuthDegrees,
                elevationDegrees: Double = AutoFramer.defaultElevationDegrees,
                distanceFactor: Double = CameraRequest.defaultDistanceFactor, zoom: Double = CameraRequest.defaultZoom) {
        self.position = position
        self.target = target
        self.up = up
        self.fovYDegrees = fovYDegrees
        self.padding = padding
        self.azimuthDegrees = azimuthDegrees
        self.elevationDegrees = elevationDegrees
        self.distanceFactor = distanceFactor
        self.zoom = zoom
    }

    /// The vertical field of view the cameras use: `fovYDegrees` narrowed by `zoom`
    /// (tan(fov/2) divided by it). The framing is fitted with `fovYDegrees`, so a zoom crops it.
    public var zoomedFovYDegrees: Double {
        guard zoom.isFinite, zoom > 0, zoom != 1 else { return fovYDegrees }
        return 2 * atan(tan(fovYDegrees * .pi / 360) / zoom) * 180 / .pi
    }

    /// The camera used and how each part was chosen.
    public struct Resolved: Sendable {
        public var camera: Camera
        /// "option" or "auto" for each of position, target and up.
        public var positionSource: String
        public var targetSource: String
        public var upSource: String

        public init(camera: Camera, positionSource: String, targetSource: String, upSource: String) {
            self.camera = camera
            self.positionSource = positionSource
            self.targetSource = targetSource
            self.upSource = upSource
        }

        /// The report's `camera` object.
        public var json: JSONValue {
            .object([
                ("position", .vector(camera.position)),
                ("target", .vector(camera.target)),
                ("up", .vector(camera.up)),
                ("fov_y_degrees", .double(camera.fovYDegrees)),
                ("near", .double(camera.near)),
                ("position_source", .string(positionSource)),
                ("target_source", .string(targetSource)),
                ("up_source", .string(upSource)),
            ])
        }

        /// One line for `--verbose`.
        public var summary: String {
            func v(_ p: SIMD3<Double>) -> String {
                "(" + [p.x, p.y, p.z].map { String(($0 * 10000).rounded() / 10000) }.joined(separator: ", ") + ")"
            }
            return "position \(v(camera.position)) [\(positionSource)], target \(v(camera.target)) [\(targetSource)], up \(v(camera.up)) [\(upSource)], vertical fov \(camera.fovYDegrees)°"
        }
    }

    /// Fills in what is missing: no camera → the automatic three-quarter view; only a position →
    /// look at the framed centre; only a target → the automatic view's offset around that target.
    /// A given `up` also orients the automatic orbit.
    public func resolve(for scene: SplatScene, width: Int, height: Int) -> Resolved {
        if position != nil, target != nil { return resolve(with: nil) }
        return resolve(with: framing(for: scene, width: width, height: height))
    }

    /// The automatic framing this request's missing parts come from; its distance is fitted for
    /// views at `elevationDegrees` and `alsoElevationsDegrees` (a turntable passes its orbit's
    /// elevation, a contact sheet its rows) with this request's padding, then multiplied by
    /// `distanceFactor`. `extent` `.allSplats` is the blank-frame guard's second try.
    public func framing(for scene: SplatScene, width: Int, height: Int,
                        elevationDegrees: Double? = nil, alsoElevationsDegrees: [Double] = [],
                        extent: AutoFramer.Extent = .robust) -> Framing {
        var framing = AutoFramer.frame(scene, width: width, height: height, fovYDegrees: fovYDegrees, up: up ?? Camera.defaultUp,
                                       elevationDegrees: elevationDegrees ?? self.elevationDegrees, padding: padding,
                                       alsoElevationsDegrees: alsoElevationsDegrees, extent: extent)
        if distanceFactor.isFinite, distanceFactor > 0 { framing.distance *= distanceFactor }
        return framing
    }

    /// `resolve(for:width:height:)` with the framing already computed (nil only when both
    /// position and target are given, which need none).
    public func resolve(with framing: Framing?) -> Resolved {
        if let position, let target {
            let camera = Camera(position: position, target: target, up: up ?? Camera.defaultUp, fovYDegrees: zoomedFovYDegrees)
            return Resolved(camera: camera, positionSource: "option", targetSource: "option",
                            upSource: up == nil ? "default" : "option")
        }
        let framing = framing ?? Framing(center: .zero, radius: 1, distance: 3, up: up ?? Camera.defaultUp)
        let auto = framing.camera(azimuthDegrees: azimuthDegrees,
                                  elevationDegrees: elevationDegrees, fovYDegrees: zoomedFovYDegrees)
        var camera = auto
        if let position {
            camera.position = position
            camera.target = auto.target
        } else if let target {
            camera.position = target + (auto.position - auto.target)
            camera.target = target
        }
        return Resolved(camera: camera, positionSource: position == nil ? "auto" : "option",
                        targetSource: target == nil ? "auto" : "option", upSource: up == nil ? "auto" : "option")
    }
}
