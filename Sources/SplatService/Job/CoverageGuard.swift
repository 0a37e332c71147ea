import SplatCore
import SplatRender

/// The blank-frame guard: how much of each output the subject covers, and what a job does
/// when it is (nearly) nothing.
///
/// Coverage is the renderer's mean alpha over a view. An output's coverage is the smallest over
/// its views (the still; every frame of a frames folder or an animation; every sheet tile): one
/// empty frame is an empty frame, however full the others are. An output is low when that is
/// below `lowCoverage` or a view had no visible splat. Then:
/// 1. when the camera was framed automatically, the job frames once more with every splat
///    (`AutoFramer.Extent.allSplats`: no opacity floor, no percentile trimming — a subject made
///    of faint or scattered splats, or one the robust box missed) and renders again; the report
///    says so (`framing_extent`, a warning);
/// 2. what is still low gets a `low_coverage` warning;
/// 3. with `SceneJob.minCoverage`, an output below it fails the job with kind `blank`.
public enum CoverageGuard {
    /// Below this coverage (0.5 % of the frame) an output is reported as `low_coverage`.
    public static let lowCoverage = 0.005

    /// The smallest coverage and visible-splat count seen per output.
    struct Tally {
        private(set) var coverage: [OutputRecord.Role: Double] = [:]
        private(set) var visible: [OutputRecord.Role: Int] = [:]

        mutating func add(_ result: RenderResult, to role: OutputRecord.Role) {
            coverage[role] = min(coverage[role] ?? 1, result.coverage)
            visible[role] = min(visible[role] ?? Int.max, result.stats.visibleSplats)
        }

        /// Whether a view of `role` was below `threshold` or showed no splat.
        func isLow(_ role: OutputRecord.Role, below threshold: Double) -> Bool {
            guard let c = coverage[role] else { return false }
            return c < threshold || visible[role] == 0
        }
    }

    /// The warning for an output that stayed low.
    static func warning(_ role: OutputRecord.Role, coverage: Double, visible: Int, retried: Bool) -> String {
        let percent = (coverage * 10_000).rounded() / 100
        let what = visible == 0 ? "no splat is visible" : "the subject covers \(percent) % of the frame"
        let tried = retried ? " even framed with every splat" : ""
        return "low_coverage: \(role.rawValue): \(what)\(tried) (below \(lowCoverage * 100) %)"
    }
}
