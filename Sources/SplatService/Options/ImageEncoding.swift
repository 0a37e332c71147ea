import SplatCore
import SplatImage

/// How a job's still images (the single view and the contact sheet) are encoded: the format —
/// nil takes it from each output path's extension (an unknown one is refused), and names it for
/// images returned to the caller (PNG when nil) — and the quality for lossy formats (WebP is
/// lossless without one; JPEG defaults to 90). JPEG has no alpha: a transparent render is
/// composited onto the job's background, or white. Turntable frames are always PNG.
public struct ImageEncoding: Sendable, Equatable {
    public var format: ImageFormat?
    public var quality: Double?

    public init(format: ImageFormat? = nil, quality: Double? = nil) {
        self.format = format
        self.quality = quality
    }

    /// Refuses what cannot be written, before any work: an unknown extension, a quality for PNG.
    public func validate(for path: String?) throws(SplatError) {
        let chosen = try resolvedFormat(for: path)
        if chosen == .png, let quality, format == .png || path != nil {
            throw SplatError(.invalidArgument, "PNG is lossless and takes no quality (got \(quality)); use .webp or .jpg for lossy output",
                             field: "quality")
        }
    }

    /// The format for an image written to `path`, or for the caller when `path` is nil.
    public func resolvedFormat(for path: String?) throws(SplatError) -> ImageFormat {
        if let format { return format }
        guard let path else { return .png }
        return try ImageFormat.forOutput(path: path)
    }
}
