import Foundation
import SplatCore

/// Infers which way is up in a scene's stored frame from the splats themselves (and the training
/// cameras or a safe-orbit hint when there are any), for files that declare no frame and break
/// their format's convention.
///
/// Two questions, answered by separate votes:
/// 1. The vertical line. Candidates with a weight in [0, 1] each: the ground plane's normal
///    (`GroundPlane`), the densest cone of flat-splat normals (`SurfaceNormalMode`), the thin axis
///    of a flat mass and the long axis of a tall one (`MassShape`); the mean training-camera up
///    weighs up to 10 and a safe-orbit hint 2, so they outvote the geometry. Lines within
///    `clusterDegrees` of each other pool their weight; the heaviest pool wins, with
///    `axisConfidence` = pool / (all weight + `priorWeight`).
/// 2. Which way along it. Sign votes in [−1, 1] (cameras and hint again, the ground plane's mass
///    side, `MassProfile.bottomLayer`, and `MassProfile.taper` when the line is a tall axis);
///    `signConfidence` = |sum| / (sum of magnitudes + `priorWeight`).
///
/// `confidence` = axisConfidence × signConfidence. The prior weight is what keeps one weak vote,
/// or votes that cancel, from ever looking sure. Everything works on the auto-framer's ≤ 65,536-
/// splat fixed-stride sample, and nothing refers to the stored axes until the final snap to the
/// nearest one, so a rotated scene gives the rotated answer.
///
/// What it cannot know: a floating sphere has no up, nor does a head without a neck, a flat sign
/// or a logo slab; such scenes come out below the threshold (measured in `Documentation/orientation.md`).
public enum UpEstimator {
    /// Estimates below this are not acted on. Set between the highest confidence of a wrong
    /// estimate on the corpus (0.07) and the lowest of a right one (0.36), in every orientation;
    /// see `Documentation/orientation.md` for the measurement.
    public static let confidenceThreshold = 0.25
    /// Lines closer than this pool their votes.
    public static let clusterDegrees = 15.0
    /// Weight of "don't know" in both confidence ratios.
    public static let priorWeight = 0.5
    /// Vote weight of perfectly coherent training cameras (times their mean resultant length).
    public static let cameraWeight = 10.0
    /// Vote weight of a safe-orbit hint.
    public static let safeOrbitWeight = 2.0
    /// Floor evidence (ground plane plus normal cone) square to the long axis that silences the
    /// tall-extent vote entirely; less scales it down in proportion.
    static let lyingFloorWeight = 0.3
    /// Below this many splats the geometry says nothing about up (a handful of points has an
    /// extent and a "plane" by chance): only cameras and hints vote. The smallest corpus scene
    /// the evaluation scores has 1,000.
    public static let minimumSplatsForGeometry = 512

    /// The estimate for `scene` in its stored frame. Deterministic: the same for any `threads`.
    /// With no usable evidence at all, the frame's own up (declared, else conventional) with
    /// confidence 0.
    public static func estimate(_ scene: SplatScene, hints: UpHints = UpHints(), threads: Int? = nil) -> UpEstimate {
        let sample = OrientationSample(scene, threads: threads)
        var lines: [Line] = []
        var cameraMean: SIMD3<Double>?
        if let (mean, coherence) = meanDirection(hints.cameraUps) {
            cameraMean = mean
            lines.append(Line(source: .trainingCameras, vector: mean, weight: cameraWeight * coherence, precision: 100))
        }
        if let up = hints.safeOrbitUp, let unit = normalized(up) {
            lines.append(Line(source: .safeOrbit, vector: unit, weight: safeOrbitWeight, precision: 50))
        }
        let shape = MassShape(sample)
        let normals = SurfaceNormalMode(sample)
        let ground = GroundPlane.find(sample, threads: threads)
        var groundWeight = 0.0
        // Floor evidence square to the long axis, before the outline gate (see the tall extent).
        var floorAcrossTall = 0.0
        if let ground {
            let floor = unitClamp((ground.support - 0.05) / 0.2) * unitClamp((ground.oneSidedness - 0.8) / 0.15)
                * unitClamp((0.3 - ground.gap) / 0.2) * unitClamp((ground.normalAgreement - 0.05) / 0.15)
            groundWeight = floor * shape.outlineGate(sample, along: ground.up)
            let line = Line(source: .groundPlane, vector: ground.up, weight: groundWeight, precision: 4)
            lines.append(line)
            if line.isSquare(to: shape.tallLine) { floorAcrossTall += floor }
        }
        if let direction = normals.direction {
            let floor = unitClamp((normals.fraction - 0.1) / 0.3)
            let line = Line(source: .surfaceNormals, vector: direction, weight: floor * shape.outlineGate(sample, along: direction),
                            precision: 2)
            lines.append(line)
            if line.isSquare(to: shape.tallLine) { floorAcrossTall += floor }
        }
        lines.append(Line(source: .flatExtent, vector: shape.flatLine,
                          weight: shape.flatness * shape.outlineGate(sample, along: shape.flatLine), precision: 1))
        // A long mass with a floor along its length lies (a street, a train, a corridor), so floor
        // evidence square to the long axis silences it in proportion; a standing subject's floor
        // lies across its long axis instead. The floor's outline gate does not apply here: an
        // oblong floor is no evidence of up, but it is evidence that the long axis is level.
        lines.append(Line(source: .tallExtent, vector: shape.tallLine,
                          weight: shape.elongation * unitClamp(1 - floorAcrossTall / lyingFloorWeight), precision: 1))

        if scene.count < minimumSplatsForGeometry {
            for i in lines.indices where lines[i].source != .trainingCameras && lines[i].source != .safeOrbit {
                lines[i].weight = 0
            }
        }
        let fallback = (scene.declaredFrame ?? scene.conventionalFrame).upAxis
        guard let chosen = heaviestPool(lines) else {
            return UpEstimate(axis: fallback, vector: fallback.vector, confidence: 0,
                              evidence: lines.map { $0.evidence(up: nil) })
        }
        let total = lines.reduce(0) { $0 + $1.weight }
        let axisConfidence = chosen.weight / (total + priorWeight)
        let members = lines.filter { $0.weight > 0 && $0.isNear(chosen.vector) }
        let line = refinedLine(members, reference: chosen.vector)

        var signs: [(UpEvidence.Source, Double)] = []
        let memberSources = Set(members.map(\.source))
        if let cameraMean, memberSources.contains(.trainingCameras) {
            signs.append((.trainingCameras, lines.first { $0.source == .trainingCameras }!.weight * sign(of: cameraMean, along: line)))
        }
        if let up = hints.safeOrbitUp, memberSources.contains(.safeOrbit) {
            signs.append((.safeOrbit, safeOrbitWeight * sign(of: up, along: line)))
        }
        if let ground, memberSources.contains(.groundPlane) {
            // A dense layer at the far end too (a ceiling, a slab's other face) could as well be the floor.
            let unambiguous = unitClamp((0.8 - ground.farLayer) / 0.5)
            signs.append((.groundPlane, groundWeight * unambiguous * sign(of: ground.up, along: line)))
        }
        signs.append((.bottomLayer, MassProfile.bottomLayer(sample, along: line)))
        if memberSources.contains(.tallExtent) {
            signs.append((.taper, MassProfile.taper(sample, along: line)))
        }
        let sum = signs.reduce(0) { $0 + $1.1 }, magnitude = signs.reduce(0) { $0 + abs($1.1) }
        let signConfidence = magnitude > 0 ? abs(sum) / (magnitude + priorWeight) : 0
        let up = sum < 0 ? -line : line

        var evidence = lines.map { $0.evidence(up: memberSources.contains($0.source) ? up : nil) }
        evidence += signs.map { source, vote in
            UpEvidence(source: source, role: .sign, vector: vote < 0 ? -line : line, weight: abs(vote),
                       agrees: vote != 0 && (vote < 0) == (sum < 0))
        }
        let axis = SignedAxis.nearest(to: up) ?? fallback
        return UpEstimate(axis: axis, vector: up, confidence: axisConfidence * signConfidence, evidence: evidence)
    }

    /// A candidate vertical line and how much it weighs.
    private struct Line {
        var source: UpEvidence.Source
        var vector: SIMD3<Double>
        var weight: Double
        /// How much to trust its direction when averaging the winning pool: a fitted plane beats
        /// a normal mode, which beats a principal axis.
        var precision: Double

        func isNear(_ other: SIMD3<Double>) -> Bool {
            abs((vector * other).sum()) >= cos(UpEstimator.clusterDegrees * .pi / 180)
        }

        /// Within `clusterDegrees` of a right angle to `other`.
        func isSquare(to other: SIMD3<Double>) -> Bool {
            abs((vector * other).sum()) <= sin(UpEstimator.clusterDegrees * .pi / 180)
        }

        /// The vote as reported; `up` (when this line counted) gives it the estimate's sign.
        func evidence(up: SIMD3<Double>?) -> UpEvidence {
            let signed = up.map { (vector * $0).sum() < 0 ? -vector : vector } ?? vector
            return UpEvidence(source: source, role: .axis, vector: signed, weight: weight, agrees: up != nil)
        }
    }

    /// The line whose pool (itself plus every weighted line within `clusterDegrees`) is heaviest;
    /// the earlier line on a tie. Nil when nothing has weight.
    private static func heaviestPool(_ lines: [Line]) -> (vector: SIMD3<Double>, weight: Double)? {
        var best: (SIMD3<Double>, Double)?
        for line in lines where line.weight > 0 {
            let pool = lines.filter { $0.weight > 0 && $0.isNear(line.vector) }.reduce(0) { $0 + $1.weight }
            if best == nil || pool > best!.1 { best = (line.vector, pool) }
        }
        return best
    }

    /// The direction of the winning pool: a strong ground plane or the cameras alone (their
    /// direction is measured, not inferred from a shape), else the precision-weighted mean.
    private static func refinedLine(_ members: [Line], reference: SIMD3<Double>) -> SIMD3<Double> {
        if let cameras = members.first(where: { $0.source == .trainingCameras }) { return cameras.vector }
        if let ground = members.first(where: { $0.source == .groundPlane && $0.weight >= 0.5 }) { return ground.vector }
        var sum = SIMD3<Double>.zero
        for m in members {
            let aligned = (m.vector * reference).sum() < 0 ? -m.vector : m.vector
            sum += m.weight * m.precision * aligned
        }
        return normalized(sum) ?? reference
    }

    /// The normalised mean of unit vectors and its resultant length in [0, 1] (1: all equal).
    private static func meanDirection(_ vectors: [SIMD3<Double>]) -> (SIMD3<Double>, Double)? {
        let units = vectors.compactMap(normalized)
        guard !units.isEmpty else { return nil }
        let sum = units.reduce(SIMD3<Double>.zero, +)
        guard let mean = normalized(sum) else { return nil }
        return (mean, (sum * sum).sum().squareRoot() / Double(units.count))
    }

    private static func sign(of v: SIMD3<Double>, along line: SIMD3<Double>) -> Double {
        (v * line).sum() < 0 ? -1 : 1
    }

    private static func normalized(_ v: SIMD3<Double>) -> SIMD3<Double>? {
        let l = (v * v).sum().squareRoot()
        return l > 0 && l.isFinite ? v / l : nil
    }
}
