/// A scene's declared size judged against the caller's limits and the 768 MiB service ceiling,
/// with the figures: what `DecodeLimits.sizeVerdict` returns, what decoders check before they
/// allocate and what reports print under `ceiling`.
public struct SceneSizeVerdict: Sendable, Equatable {
    public var count: Int
    /// SH degree stored in the file.
    public var fileDegree: Int
    /// SH degree the decoder keeps (after `maxShDegree`).
    public var keptDegree: Int
    /// `count × bytesPerSplat(keptDegree)`, nil when that overflows 64 bits.
    public var declaredDecodedBytes: Int?
    public var maxDecodedBytes: Int
    public var maxSplats: Int

    public var bytesPerSplat: Int { SplatScene.bytesPerSplat(degree: keptDegree) }

    /// Within the caller's splat-count and decoded-byte limits.
    public var fitsLimit: Bool {
        guard count <= maxSplats, let bytes = declaredDecodedBytes else { return false }
        return bytes <= maxDecodedBytes
    }

    /// Within the 768 MiB service ceiling, whatever limit the caller set.
    public var fitsServiceCeiling: Bool {
        guard let bytes = declaredDecodedBytes else { return false }
        return bytes <= DecodeLimits.serviceCeilingBytes
    }

    /// The error that refuses this scene, or nil when it fits the caller's limits.
    public func refusal(file: String? = nil) -> SplatError? {
        guard count <= maxSplats else {
            return SplatError(.implausibleCount, "\(count) splats exceeds the limit of \(maxSplats)", file: file, field: "count")
        }
        guard let bytes = declaredDecodedBytes else {
            return SplatError(.tooLarge, "\(count) splats at SH degree \(keptDegree) overflow a 64-bit size", file: file, field: "count")
        }
        guard bytes <= maxDecodedBytes else {
            return SplatError(.tooLarge, "decoded scene would take \(bytes) bytes (\(count) splats at SH degree \(keptDegree)); the limit is \(maxDecodedBytes)", file: file, field: "count")
        }
        return nil
    }
}
