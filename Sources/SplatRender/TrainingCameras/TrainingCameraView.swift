import Foundation
import SplatCore

extension Camera {
    /// The look-at camera that sees what training camera `camera` saw, for an image of `width` ×
    /// `height` (`--view training:K`): eye at the camera centre, looking along its forward axis,
    /// its image-up (−down) at the top, and the training image's vertical field of view, i.e. fy
    /// scaled by height / training height. Our cameras have square pixels and a centred principal
    /// point (as INRIA's `cameras.json` assumes), so the picture matches the training image exactly
    /// when fx = fy and the aspect ratio is kept; otherwise the vertical extent matches and the
    /// horizontal one follows from the output's aspect ratio.
    ///
    /// `camera` must be in the frame the scene is rendered in: convert it with the scene
    /// (`TrainingCamera.converted(by:)`). Nil when its rotation is degenerate.
    public init?(training camera: TrainingCamera, near: Double = Camera.defaultNear) {
        let forward = camera.forward, up = camera.up
        let fLength = (forward * forward).sum().squareRoot(), uLength = (up * up).sum().squareRoot()
        guard fLength > 0, uLength > 0, fLength.isFinite, uLength.isFinite, camera.fy > 0, camera.height > 0 else { return nil }
        self.init(position: camera.position, target: camera.position + forward / fLength, up: up / uLength,
                  fovYDegrees: camera.verticalFOVDegrees, near: near)
        guard rotationRows != nil else { return nil }
    }
}

/// Picks a training camera for a thumbnail (`--view training:auto`).
public enum TrainingCameraSelection {
    /// The camera whose direction from `center` (the framed scene centre) is nearest the mean of
    /// all cameras' directions from it: the most typical vantage point of the capture, not an
    /// outlier at the end of a walk. The lowest index on a tie; nil for an empty list or when every
    /// camera sits at `center`.
    public static func automatic(_ cameras: [TrainingCamera], center: SIMD3<Double>) -> Int? {
        let directions: [SIMD3<Double>?] = cameras.map { c in
            let d = c.position - center
            let l = (d * d).sum().squareRoot()
            return l > 0 && l.isFinite ? d / l : nil
        }
        let sum = directions.compactMap { $0 }.reduce(SIMD3<Double>.zero, +)
        let length = (sum * sum).sum().squareRoot()
        // Cameras spread evenly around the centre have no mean direction: take the first usable.
        guard length > 1e-9 else { return directions.firstIndex { $0 != nil } }
        let mean = sum / length
        var best: Int?, bestDot = -Double.infinity
        for (i, d) in directions.enumerated() {
            guard let d else { continue }
            let dot = (d * mean).sum()
            if dot > bestDot { best = i; bestDot = dot }
        }
        return best
    }
}
