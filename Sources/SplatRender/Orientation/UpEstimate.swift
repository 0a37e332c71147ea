import Foundation
import SplatCore

/// One source's say in an up estimate, as reported (`up_estimate.evidence`).
public struct UpEvidence: Sendable, Equatable, Codable {
    /// Where a vote comes from.
    public enum Source: String, Sendable, Codable, CaseIterable {
        /// The mean up vector of the training cameras (`UpHints.cameraUps`).
        case trainingCameras = "training_cameras"
        /// The up of the frame an SPZ safe-orbit range was authored in (`UpHints.safeOrbitUp`).
        case safeOrbit = "safe_orbit"
        /// The RANSAC ground plane (`GroundPlane`).
        case groundPlane = "ground_plane"
        /// The densest cone of flat-splat normals (`SurfaceNormalMode`).
        case surfaceNormals = "surface_normals"
        /// The thin axis of a flat mass.
        case flatExtent = "flat_extent"
        /// The long axis of a tall mass.
        case tallExtent = "tall_extent"
        /// Which end of the mass is a dense supporting layer.
        case bottomLayer = "bottom_layer"
        /// Which end of a tall mass is narrower.
        case taper
    }

    /// What a vote is about: the line up lies on, or which way along it.
    public enum Role: String, Sendable, Codable {
        case axis
        case sign
    }

    public var source: Source
    public var role: Role
    /// Unit direction in the stored frame. An axis vote has no sign of its own and is reported with
    /// the sign of the estimate; a sign vote points the way it says is up.
    public var vector: SIMD3<Double>
    /// Strength of the vote, ≥ 0 (0: the source abstained). Cameras weigh up to 10, a safe-orbit
    /// hint 2, each geometric source up to 1.
    public var weight: Double
    /// Whether the vote went with the estimate: its line is the chosen one (axis) or it points the
    /// chosen way (sign).
    public var agrees: Bool

    public init(source: Source, role: Role, vector: SIMD3<Double>, weight: Double, agrees: Bool) {
        self.source = source
        self.role = role
        self.vector = vector
        self.weight = weight
        self.agrees = agrees
    }
}

/// Where up is in a scene's stored frame, how sure the estimator is, and why
/// (`UpEstimator.estimate`). JSON: `{"axis": "+Y", "vector": [x, y, z], "confidence": c,
/// "evidence": [...]}`.
public struct UpEstimate: Sendable, Equatable, Codable {
    /// The stored axis nearest to `vector`: what an axis-aligned correction would use.
    public var axis: SignedAxis
    /// The estimated up direction (unit), not snapped to an axis: for scenes stored at an
    /// arbitrary rotation.
    public var vector: SIMD3<Double>
    /// In [0, 1]; act on the estimate only at or above `UpEstimator.confidenceThreshold`.
    public var confidence: Double
    /// Every source's vote, agreeing or not, abstentions included (weight 0).
    public var evidence: [UpEvidence]

    public init(axis: SignedAxis, vector: SIMD3<Double>, confidence: Double, evidence: [UpEvidence]) {
        self.axis = axis
        self.vector = vector
        self.confidence = confidence
        self.evidence = evidence
    }

    /// Whether `confidence` reaches `UpEstimator.confidenceThreshold`.
    public var isConfident: Bool { confidence >= UpEstimator.confidenceThreshold }

    /// Angle in degrees between `vector` and `axis`: how far from axis-aligned the scene's up is.
    public var degreesFromAxis: Double {
        let c = min(max((vector * axis.vector).sum(), -1), 1)
        return acos(c) * 180 / .pi
    }
}
