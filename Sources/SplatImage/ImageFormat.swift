import SplatCore

/// The still-image formats the writers produce. An output path's extension picks one
/// (`init?(path:)`); `-` (standard output) needs it named (`init?(name:)`, `--out-format`).
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    /// Lossless, with alpha.
    case png
    /// Lossless by default, lossy with a quality; with alpha either way.
    case webp
    /// Lossy, no alpha: RGBA is composited onto a matte colour.
    case jpeg

    /// The format a file extension names, case-insensitively, with or without the dot:
    /// png; webp; jpg, jpeg. nil for any other.
    public init?(fileExtension: String) {
        var ext = Substring(fileExtension.lowercased())
        if ext.hasPrefix(".") { ext = ext.dropFirst() }
        switch ext {
        case "png": self = .png
        case "webp": self = .webp
        case "jpg", "jpeg": self = .jpeg
        default: return nil
        }
    }

    /// The format of a path's extension (the text after the last dot of its last component).
    public init?(path: String) {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(fileExtension: String(name[name.index(after: dot)...]))
    }

    /// The format named on a command line (`--out-format png|webp|jpeg`); "jpg" is accepted too.
    public init?(name: String) {
        self.init(fileExtension: name)
    }

    /// The format of an output path, or `invalid_argument` naming the extensions there are —
    /// an unknown extension is refused rather than written as PNG under the wrong name.
    public static func forOutput(path: String) throws(SplatError) -> ImageFormat {
        guard let format = ImageFormat(path: path) else {
            throw SplatError(.invalidArgument, "cannot tell the image format of \(path): use .png, .webp, .jpg or .jpeg",
                             file: path)
        }
        return format
    }

    /// `image/png`, `image/webp`, `image/jpeg`.
    public var mimeType: String { "image/\(rawValue)" }

    /// The usual extension, without the dot: png, webp, jpg.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// Whether the format stores alpha; when it does not, RGBA images are composited onto a matte.
    public var supportsAlpha: Bool { self != .jpeg }

    /// Whether `quality` means anything: WebP (lossy when given) and JPEG.
    public var takesQuality: Bool { self != .png }
}
