/// An 8-bit image, rows top to bottom, channels interleaved: RGB (3) or RGBA (4, straight alpha).
public struct ImageBuffer: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// 3 for RGB, 4 for RGBA.
    public let channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 3 || channels == 4, "RGB or RGBA")
        precondition(pixels.count == width * height * channels, "pixel count matches the size")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// A blank image (all zero).
    public init(width: Int, height: Int, channels: Int) {
        self.init(width: width, height: height, channels: channels, pixels: [UInt8](repeating: 0, count: width * height * channels))
    }

    public var hasAlpha: Bool { channels == 4 }
}
