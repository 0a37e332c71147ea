import SplatCore
import SplatRender

/// Which training camera a single render shows (`--view training:K` or `--view training:auto`):
/// the camera of `cameras.json` with `id` K, or the most typical vantage point of the capture
/// (`TrainingCameraSelection.automatic`). The camera is moved with the scene's frame decision, and
/// its vertical field of view scales to the output size.
public enum TrainingView: Sendable, Equatable {
    case id(Int)
    case automatic

    /// Parses `training:K` (K an integer id) or `training:auto`.
    public init(parsing text: String) throws(UsageError) {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("training:") else {
            throw UsageError("--view: expected training:K (a camera id of --cameras) or training:auto, got \"\(text)\"")
        }
        let rest = lowered.dropFirst("training:".count)
        if rest == "auto" { self = .automatic; return }
        guard let id = Int(rest), id >= 0 else {
            throw UsageError("--view: \"\(rest)\" is not a camera id (a non-negative integer) or auto")
        }
        self = .id(id)
    }

    /// The training camera chosen from `cameras` (in the stored frame), moved into the render
    /// frame with `decision`; `center` is the framed scene centre in the render frame (for
    /// `automatic`). Throws `invalid_argument` when no such camera exists or its rotation is
    /// degenerate.
    public func camera(from cameras: [TrainingCamera], decision: FrameDecision, center: SIMD3<Double>,
                       near: Double = Camera.defaultNear) throws(SplatError) -> Camera {
        guard !cameras.isEmpty else {
            throw SplatError(.invalidArgument, "--view training needs --cameras cameras.json", field: "view")
        }
        let moved = cameras.map(decision.apply(to:))
        let chosen: TrainingCamera
        switch self {
        case .id(let id):
            guard let match = moved.first(where: { $0.id == id }) else {
                let ids = moved.map(\.id)
                throw SplatError(.invalidArgument, "no training camera with id \(id) (ids \(ids.min() ?? 0)–\(ids.max() ?? 0))", field: "view")
            }
            chosen = match
        case .automatic:
            guard let index = TrainingCameraSelection.automatic(moved, center: center) else {
                throw SplatError(.invalidArgument, "no training camera has a direction from the scene centre", field: "view")
            }
            chosen = moved[index]
        }
        guard let camera = Camera(training: chosen, near: near) else {
            throw SplatError(.invalidArgument, "training camera \(chosen.id) has a degenerate rotation", field: "view")
        }
        return camera
    }
}
