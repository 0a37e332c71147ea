import SplatImage

/// A looping animated WebP of the turntable frames and where it goes.
public struct AnimationOutput: Sendable, Equatable {
    public var path: String
    public var options: AnimatedWebPWriter.Options

    public init(path: String, options: AnimatedWebPWriter.Options = AnimatedWebPWriter.Options()) {
        self.path = path
        self.options = options
    }
}
