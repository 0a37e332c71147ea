/// Where a scene's substance is: per axis, the 1st and 99th percentiles (`Percentiles`, type 7)
/// of the centres of the splats with finite centres and opacity ≥ `minimumOpacity`, each splat
/// counted once (not weighted by opacity: this describes the data, where framing weights by what
/// shows). Floaters, sky shells and faint haze fall outside it; min/max bounds do not.
public struct RobustBox: Sendable, Equatable {
    /// Splats fainter than this do not shape the box: the framing threshold
    /// (`AutoFramer.minimumOpacity`), so the box and the thumbnails' framing agree on what
    /// "the subject" is.
    public static let minimumOpacity: Float = AutoFramer.minimumOpacity
    /// Lower and upper percentile fractions, per axis.
    public static let lowerFraction = 0.01
    public static let upperFraction = 0.99

    public var lower: SIMD3<Double>
    public var upper: SIMD3<Double>
    /// Splats the percentiles were taken over.
    public var splatCount: Int
    /// False when no splat with a finite centre reached `minimumOpacity` and the box was taken
    /// over every finite centre instead.
    public var opaqueOnly: Bool

    public init(lower: SIMD3<Double>, upper: SIMD3<Double>, splatCount: Int, opaqueOnly: Bool) {
        self.lower = lower
        self.upper = upper
        self.splatCount = splatCount
        self.opaqueOnly = opaqueOnly
    }

    /// upper − lower per axis.
    public var extent: SIMD3<Double> { upper - lower }

    /// Area of the box's largest face: the cross-section the overdraw estimate spreads the
    /// footprints over.
    public var largestFaceArea: Double {
        let e = extent
        return max(e.x * e.y, e.y * e.z, e.z * e.x)
    }
}
