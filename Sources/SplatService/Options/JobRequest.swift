import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// The library's job settings as the options give them: the one translation from option values
/// (command line, query string or job JSON — all parsed by the same table) to job values.
extension ParsedCommand {
    /// `--format`, the limits, `--source-frame`, `--flip`, `--threads`.
    public var loadOptions: LoadOptions {
        var limits = DecodeLimits(maxDecodedBytes: integer(.maxDecodedBytes) ?? DecodeLimits.serviceCeilingBytes,
                                  maxShDegree: integer(.maxShDegree), strict: flag(.strict))
        limits.maxInputBytes = integer(.maxInputBytes)
        let up = choice(.up).flatMap(FrameOptions.UpPolicy.init(name:)) ?? FrameOptions.defaultUpPolicy
        var load = LoadOptions(format: format(.format), limits: limits,
                               frame: FrameOptions(sourceFrame: frame(.sourceFrame), up: up, flip: flag(.flip)),
                               threads: integer(.threads))
        if let scale = choice(.gltfScale).flatMap(GLTFDecoder.ScaleEncoding.init(rawValue:)) {
            load.gltf = GLTFDecoder.Options(scaleEncoding: scale, threads: integer(.threads))
        }
        return load
    }

    /// `--view training:K|training:auto`, checked: it needs `--cameras` and excludes a given
    /// camera position or target.
    public func trainingView() throws(UsageError) -> TrainingView? {
        guard let given = text(.view) else { return nil }
        let view = try TrainingView(parsing: given)
        guard text(.cameras) != nil else { throw UsageError("--view \(given) needs --cameras cameras.json") }
        if vector(.cameraPos) != nil || vector(.cameraTarget) != nil {
            throw UsageError("--view \(given) is a whole camera; it cannot be combined with --camera-pos or --camera-target")
        }
        return view
    }

    /// `--resolution`, `--camera-*`, `--padding`, `--azimuth`, `--elevation`, `--distance`,
    /// `--zoom`, `--background`, `--antialiased`, `--sh-degree`, `--threads`.
    public var viewRequest: ViewRequest {
        let size = resolution(.resolution) ?? (RenderSettings.defaultWidth, RenderSettings.defaultHeight)
        let camera = CameraRequest(position: vector(.cameraPos), target: vector(.cameraTarget), up: vector(.cameraUp),
                                   fovYDegrees: number(.cameraFov) ?? Camera.defaultFovYDegrees,
                                   padding: number(.padding) ?? AutoFramer.defaultPadding,
                                   azimuthDegrees: number(.azimuth) ?? AutoFramer.defaultAzimuthDegrees,
                                   elevationDegrees: number(.elevation) ?? AutoFramer.defaultElevationDegrees,
                                   distanceFactor: number(.distance) ?? CameraRequest.defaultDistanceFactor,
                                   zoom: number(.zoom) ?? CameraRequest.defaultZoom)
        let antialiased: Bool? = switch choice(.antialiased) {
        case "on": true
        case "off": false
        default: nil
        }
        let settings = RenderSettings(width: size.width, height: size.height,
                                      background: vector(.background).map { SIMD3<Float>($0) }, antialiased: antialiased,
                                      maxShDegree: integer(.shDegree), threads: integer(.threads))
        return ViewRequest(settings: settings, camera: camera)
    }

    /// `--frames` (or thumbnails' `--turntable`), `--elevation`, `--azimuth`.
    public var orbitOptions: OrbitOptions {
        OrbitOptions(frames: integer(.frames) ?? integer(.turntable) ?? Turntable.defaultFrames,
                     elevationDegrees: number(.elevation) ?? Turntable.defaultElevationDegrees,
                     startAzimuthDegrees: number(.azimuth) ?? Turntable.defaultStartAzimuthDegrees)
    }

    /// `--sheet-views`, `--sheet-elevations`, `--sheet-downscale`, `--sheet-columns`, `--sheet-gutter`.
    public var sheetPlan: SheetPlan {
        SheetPlan(views: integer(.sheetViews) ?? SheetPlan.defaultViews, elevationsDegrees: numbers(.sheetElevations),
                  downscale: integer(.sheetDownscale) ?? SheetPlan.defaultDownscale, columns: integer(.sheetColumns),
                  gutter: integer(.sheetGutter) ?? SheetPlan.defaultGutter)
    }

    /// `--animation-quality` (lossy), `--frame-ms` and `--animation-effort`.
    public var animationOptions: AnimatedWebPWriter.Options {
        AnimatedWebPWriter.Options(compression: number(.animationQuality).map { .lossy(quality: $0) } ?? .lossless,
                                   frameDurationMs: integer(.frameMs) ?? AnimatedWebPWriter.Options.defaultFrameDurationMs,
                                   effort: integer(.animationEffort) ?? AnimatedWebPWriter.Options.defaultEffort)
    }

    /// `--memory-budget`: the most a job's estimated peak may be.
    public var memoryBudget: Int { integer(.memoryBudget) ?? SceneAdmission.defaultMemoryBudgetBytes }

    /// `--quality` and `--out-format` (`--image-format` for a batch).
    public var imageEncoding: ImageEncoding {
        let named = choice(.outFormat) ?? choice(.imageFormat)
        return ImageEncoding(format: named.flatMap { ImageFormat(name: $0) }, quality: number(.quality))
    }

    /// `--min-coverage`: the least coverage an output may have (`CoverageGuard`).
    public var minCoverage: Double? { number(.minCoverage) }

    /// `--timeout` in seconds.
    public var timeoutSeconds: Double? { number(.timeout) }
}
