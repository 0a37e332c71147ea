/// How many splat layers cover the scene on average, as a single number a service can gate
/// publishing on (healthy captures land in the ones to hundreds; zero-padded exports, garbage
/// scales and adversarial files land orders of magnitude higher).
///
/// Definition: `ratio = footprintArea / crossSectionArea`, where
/// - `footprintArea` = Σ π·sₐ·s_b over every splat with opacity ≥ `minimumOpacity` (the renderer
///   culls the rest) whose log-scales are not NaN; sₐ, s_b are the two largest linear scales
///   (exp of the log-scales), so π·sₐ·s_b is the splat's 1-σ ellipse seen face on. Not weighted
///   by opacity: a faint splat costs the rasteriser as much fill as an opaque one. A +∞ scale
///   makes it +∞ (reject such files).
/// - `crossSectionArea` = the largest face of the `RobustBox`; when that is 0 (a single splat,
///   coincident or collinear centres) the median footprint of the counted splats instead, so
///   the ratio is then about the number of coincident layers.
/// A ratio with a zero cross-section is +∞ when any footprint area was counted and 0 otherwise.
///
/// Relation to splat-transform's `fillRatio` (playcanvas/splat-transform, `src/lib/ops/stats.ts`):
/// the same footprint (π·sₐ·s_b of the two largest scales) and the same median-footprint
/// fallback, but fillRatio sums every splat, takes its p1–p99 box over every centre and
/// divides by the mean face area (dx·dy + dy·dz + dz·dx)/3. For the same splats and box ours is
/// fillRatio × mean face / largest face, between ⅓ and 1 of it (⅓ for a flat tile, 1 for a cube):
/// layers seen through the broad side rather than averaged over the three axis views.
///
/// Only `SceneStatistics` makes these, so the memberwise initialiser stays internal.
public struct OverdrawEstimate: Sendable, Equatable {
    /// The renderer's cull threshold (1/255, `rendering.md`): fainter splats draw nothing.
    public static let minimumOpacity: Float = Preprocessor.minAlpha

    /// Which area the footprints were divided by.
    public enum CrossSection: String, Sendable, Equatable {
        case largestBoxFace = "largest_box_face"
        case medianFootprint = "median_footprint"
    }

    public var ratio: Double
    /// Σ footprint areas (scene units²).
    public var footprintArea: Double
    /// Splats whose footprints were summed.
    public var splatCount: Int
    /// The divisor (scene units²).
    public var crossSectionArea: Double
    public var crossSection: CrossSection
}
