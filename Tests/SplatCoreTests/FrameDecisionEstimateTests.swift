import SplatCore
import Testing

/// `FrameDecision.consultsEstimate` says when an up estimate can change the decision; callers
/// that do not report the estimate skip computing it otherwise, so the predicate must never be
/// false where the estimate matters.
@Suite struct FrameDecisionEstimateTests {
    static let policies: [FrameOptions.UpPolicy] = [.auto, .convention, .axis(.plusZ), .axis(.minusY)]

    /// Every option and fact combination: where the predicate is false, any estimate (each axis,
    /// confident or not) gives the decision no estimate gives; where it is true, some confident
    /// estimate changes the decision, so the predicate is not simply "true" everywhere it matters.
    @Test func anEstimateDecidesNothingWhereItIsNotConsulted() {
        var consulted = 0, skipped = 0
        for policy in Self.policies {
            for sourceFrame in [nil, CoordinateSystem.rdf] as [CoordinateSystem?] {
                for declared in [nil, CoordinateSystem.rub] as [CoordinateSystem?] {
                    for trainingUp in [nil, SignedAxis.plusX] as [SignedAxis?] {
                        let options = FrameOptions(sourceFrame: sourceFrame, up: policy, flip: false)
                        let facts = FrameFacts(declared: declared, conventional: .rdf, trainingUp: trainingUp)
                        let without = FrameDecision.decide(facts, options: options)
                        var changed = false
                        for axis in SignedAxis.allCases {
                            for confidence in [0.1, 0.9] {
                                var estimated = facts
                                estimated.estimatedUp = .init(axis: axis, confidence: confidence, threshold: 0.25)
                                let with = FrameDecision.decide(estimated, options: options)
                                if with != without { changed = true }
                            }
                        }
                        if FrameDecision.consultsEstimate(facts, options: options) {
                            consulted += 1
                            #expect(changed, "\(policy) \(String(describing: sourceFrame)) \(String(describing: declared)) \(String(describing: trainingUp))")
                        } else {
                            skipped += 1
                            #expect(!changed, "\(policy) \(String(describing: sourceFrame)) \(String(describing: declared)) \(String(describing: trainingUp))")
                        }
                    }
                }
            }
        }
        // Only `auto` with nothing stated consults it: one combination of the 32.
        #expect(consulted == 1 && skipped == 31)
    }
}
