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

    public init(position: SIMD3<Double>? = nil, target: SIMD3<Double>? = nil, up: SIMD3<Double>? = nil,
                fovYDegrees: Double = Camera.defaultFovYDegrees) {
        self.position = position
        self.target = target
        self.up = up
        self.fovYDegrees = fovYDegrees
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
    /// views at `elevationDegrees` (a turntable passes its orbit's elevation).
    public func framing(for scene: SplatScene, width: Int, height: Int,
                        elevationDegrees: Double = AutoFramer.defaultElevationDegrees) -> Framing {
        AutoFramer.frame(scene, width: width, height: height, fovYDegrees: fovYDegrees, up: up ?? Camera.defaultUp,
                         elevationDegrees: elevationDegrees)
    }

    /// `resolve(for:width:height:)` with the framing already computed (nil only when both
    /// position and target are given, which need none).
    public func resolve(with framing: Framing?) -> Resolved {
        if let position, let target {
            let camera = Camera(position: position, target: target, up: up ?? Camera.defaultUp, fovYDegrees: fovYDegrees)
            return Resolved(camera: camera, positionSource: "option", targetSource: "option",
                            upSource: up == nil ? "default" : "option")
        }
        let framing = framing ?? Framing(center: .zero, radius: 1, distance: 3, up: up ?? Camera.defaultUp)
        let auto = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                  elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: fovYDegrees)
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
