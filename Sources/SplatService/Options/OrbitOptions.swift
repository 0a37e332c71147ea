import SplatCore

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
