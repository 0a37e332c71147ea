import SplatCore

/// How close the subject of a rendered RGBA image comes to its edges: the subject is every pixel
/// whose alpha exceeds `threshold` (0.5 by default, the "alpha > 0.5"), and a side's
/// margin is the number of whole pixel columns or rows between the subject and that side.
/// Shared by the framing tests and `splat-bench margins`, so both measure the same thing.
public struct SubjectMargin: Sendable, Equatable {
    public var left: Int
    public var right: Int
    public var top: Int
    public var bottom: Int
    /// Pixels above the threshold.
    public var subjectPixels: Int

    /// The smallest of the four margins.
    public var minimum: Int { min(left, right, top, bottom) }

    /// The margins of `image`; nil when it has no alpha channel or no subject pixel.
    public static func measure(_ image: ImageBuffer, threshold: Double = 0.5) -> SubjectMargin? {
        guard image.channels == 4, image.width > 0, image.height > 0 else { return nil }
        // alpha/255 > threshold, in integers: the renderer's alpha is already rounded to bytes.
        let cut = Int((threshold * 255).rounded(.down))
        var minX = image.width, maxX = -1, minY = image.height, maxY = -1, count = 0
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                let row = y * image.width * 4
                for x in 0..<image.width where Int(p[row + 4 * x + 3]) > cut {
                    count += 1
                    minX = min(minX, x); maxX = max(maxX, x)
                    minY = min(minY, y); maxY = max(maxY, y)
                }
            }
        }
        guard count > 0 else { return nil }
        return SubjectMargin(left: minX, right: image.width - 1 - maxX, top: minY, bottom: image.height - 1 - maxY,
                             subjectPixels: count)
    }
}
