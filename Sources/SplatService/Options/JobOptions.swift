import SplatCore
import SplatImage
import SplatRender

/// What every image of a job shares: size, camera request, background and renderer overrides.
public struct ViewOptions: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// The single view's camera (missing parts from the automatic framing); its field of view
    /// and up direction also shape the orbit of turntables and sheets.
    public var camera: CameraRequest
    /// nil renders RGBA with transparency.
    public var background: SIMD3<Float>?
    /// nil follows the scene's model.
    public var antialiased: Bool?
    public var maxShDegree: Int?
    /// Worker threads for conversion and rendering (nil = all cores).
    public var threads: Int?
    public var maxTilePairs: Int

    public init(width: Int = 512, height: Int = 512, camera: CameraRequest = CameraRequest(),
                background: SIMD3<Float>? = nil, antialiased: Bool? = nil, maxShDegree: Int? = nil,
                threads: Int? = nil, maxTilePairs: Int = RenderSettings.defaultMaxTilePairs) {
        self.width = width
        self.height = height
        self.camera = camera
        self.background = background
        self.antialiased = antialiased
        self.maxShDegree = maxShDegree
        self.threads = threads
        self.maxTilePairs = maxTilePairs
    }

    public var renderSettings: RenderSettings {
        RenderSettings(width: width, height: height, background: background, antialiased: antialiased,
                       maxShDegree: maxShDegree, threads: threads, maxTilePairs: maxTilePairs)
    }
}

/// The orbit of turntable frames, contact sheets and animations (see `Turntable`).
public struct OrbitOptions: Sendable, Equatable {
    public var frames: Int
    public var elevationDegrees: Double
    /// Azimuth of frame 0 (and of the sheet's first column).
    public var startAzimuthDegrees: Double
    /// Clamp to the SPZ safe-orbit hints when the scene has them and was not converted.
    public var useCameraHints: Bool

    public init(frames: Int = Turntable.defaultFrames, elevationDegrees: Double = Turntable.defaultElevationDegrees,
                startAzimuthDegrees: Double = Turntable.defaultStartAzimuthDegrees, useCameraHints: Bool = true) {
        self.frames = frames
        self.elevationDegrees = elevationDegrees
        self.startAzimuthDegrees = startAzimuthDegrees
        self.useCameraHints = useCameraHints
    }
}

/// Where the single view's PNG goes.
public enum ImageTarget: Sendable, Equatable {
    /// Written atomically to this path.
    case file(String)
    /// Returned in `JobOutcome.imagePNG` (the command line writes it to standard output).
    case caller
}

/// A contact sheet PNG.
public struct SheetOutput: Sendable, Equatable {
    public var path: String
    public var plan: SheetPlan

    public init(path: String, plan: SheetPlan = SheetPlan()) {
        self.path = path
        self.plan = plan
    }
}

/// How an animated WebP preview is encoded.
public struct AnimationSettings: Sendable, Equatable {
    /// libwebp effort (`method`) used unless told otherwise: the fastest. Lossless effort 4 took
    /// about 1 s for 12 frames of 256² on the development machine; a preview does not need it.
    public static let defaultEffort = 0

    public var compression: WebPCompression
    public var frameDurationMs: Int
    /// 0 = forever.
    public var loopCount: Int
    public var effort: Int

    public init(compression: WebPCompression = .lossless, frameDurationMs: Int = 100, loopCount: Int = 0,
                effort: Int = AnimationSettings.defaultEffort) {
        self.compression = compression
        self.frameDurationMs = frameDurationMs
        self.loopCount = loopCount
        self.effort = effort
    }

    var writerOptions: AnimatedWebPWriter.Options {
        AnimatedWebPWriter.Options(compression: compression, frameDurationMs: frameDurationMs, loopCount: loopCount,
                                   effort: effort)
    }
}

/// A looping animated WebP of the turntable frames.
public struct AnimationOutput: Sendable, Equatable {
    public var path: String
    public var settings: AnimationSettings

    public init(path: String, settings: AnimationSettings = AnimationSettings()) {
        self.path = path
        self.settings = settings
    }
}
