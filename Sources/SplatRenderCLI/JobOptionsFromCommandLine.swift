import SplatService

/// The library's job settings as the rendering commands' options give them.
extension ParsedCommand {
    /// `--resolution`, `--camera-*`, `--background`, `--antialiased`, `--sh-degree`, `--threads`.
    var viewOptions: ViewOptions {
        let size = resolution("resolution") ?? (512, 512)
        let camera = CameraRequest(position: vector("camera-pos"), target: vector("camera-target"), up: vector("camera-up"),
                                   fovYDegrees: number("camera-fov") ?? 50)
        let antialiased: Bool? = switch choice("antialiased") {
        case "on": true
        case "off": false
        default: nil
        }
        return ViewOptions(width: size.width, height: size.height, camera: camera,
                           background: vector("background").map { SIMD3<Float>($0) }, antialiased: antialiased,
                           maxShDegree: integer("sh-degree"), threads: integer("threads"))
    }

    /// `--frames` (or thumbnails' `--turntable`), `--elevation`, `--azimuth`.
    var orbitOptions: OrbitOptions {
        OrbitOptions(frames: integer("frames") ?? integer("turntable") ?? Turntable.defaultFrames,
                     elevationDegrees: number("elevation") ?? Turntable.defaultElevationDegrees,
                     startAzimuthDegrees: number("azimuth") ?? Turntable.defaultStartAzimuthDegrees)
    }

    /// `--sheet-views`, `--sheet-elevations`, `--sheet-downscale`.
    var sheetPlan: SheetPlan {
        SheetPlan(views: integer("sheet-views") ?? SheetPlan.defaultViews, elevationsDegrees: numbers("sheet-elevations"),
                  downscale: integer("sheet-downscale") ?? SheetPlan.defaultDownscale)
    }

    /// `--animation-quality` (lossy), `--frame-ms` and `--animation-effort`.
    var animationSettings: AnimationSettings {
        AnimationSettings(compression: number("animation-quality").map { .lossy(quality: $0) } ?? .lossless,
                          frameDurationMs: integer("frame-ms") ?? 100,
                          effort: integer("animation-effort") ?? AnimationSettings.defaultEffort)
    }

    /// `--timeout` in seconds.
    var timeoutSeconds: Double? { number("timeout") }
}
