import SplatCore
import SplatRender

/// What every image of a job shares: the renderer's settings (size, background, model
/// overrides, threads, pair budget) and the camera as the caller gave it (missing parts come
/// from the automatic framing; its field of view and up also shape turntables and sheets).
public struct ViewRequest: Sendable, Equatable {
    public var settings: RenderSettings
    public var camera: CameraRequest

    public init(settings: RenderSettings = RenderSettings(), camera: CameraRequest = CameraRequest()) {
        self.settings = settings
        self.camera = camera
    }

    public var width: Int { settings.width }
    public var height: Int { settings.height }
}
