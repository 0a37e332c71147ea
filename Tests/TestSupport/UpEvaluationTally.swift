import Foundation
import SplatCore

/// Counts of orientation cases by outcome. An axis-aligned case is right when the confident
/// estimate names the true stored axis; a randomly rotated one when the confident estimate's
/// vector is within `rightDegrees` of the true up and wrong beyond `wrongDegrees` (in between it
/// is imprecise: the thumbnail would be tilted, not upside down).
public struct UpEvaluationTally: Sendable, Equatable {
    public static let rightDegrees = 10.0
    public static let wrongDegrees = 30.0

    public var cases = 0
    public var right = 0
    public var wrong = 0
    public var imprecise = 0
    /// Below the confidence threshold: the caller falls back to the format's convention.
    public var unconfident = 0
    /// Random rotations whose vector is within `rightDegrees`, confident or not.
    public var withinRightDegrees = 0

    public init() {}

    public mutating func addAxisCase(estimated: SignedAxis, confident: Bool, truth: SignedAxis) {
        cases += 1
        if !confident { unconfident += 1 } else if estimated == truth { right += 1 } else { wrong += 1 }
        if estimated == truth { withinRightDegrees += 1 }
    }

    public mutating func addRotatedCase(estimated: SIMD3<Double>, confident: Bool, truth: SIMD3<Double>) {
        cases += 1
        let angle = Self.degrees(estimated, truth)
        if angle <= Self.rightDegrees { withinRightDegrees += 1 }
        if !confident { unconfident += 1 } else if angle <= Self.rightDegrees { right += 1 } else if angle > Self.wrongDegrees {
            wrong += 1
        } else {
            imprecise += 1
        }
    }

    public static func + (a: Self, b: Self) -> Self {
        var s = a
        s.cases += b.cases; s.right += b.right; s.wrong += b.wrong; s.imprecise += b.imprecise
        s.unconfident += b.unconfident; s.withinRightDegrees += b.withinRightDegrees
        return s
    }

    public func fraction(_ count: Int) -> Double { cases > 0 ? Double(count) / Double(cases) : 0 }

    /// "right / wrong / imprecise / not confident" as percentages.
    public var summary: String {
        func p(_ n: Int) -> String { String(format: "%5.1f %%", 100 * fraction(n)) }
        return "\(p(right)) right, \(p(wrong)) wrong, \(p(imprecise)) imprecise, \(p(unconfident)) not confident (\(cases) cases)"
    }

    public static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        let la = (a * a).sum().squareRoot(), lb = (b * b).sum().squareRoot()
        guard la > 0, lb > 0 else { return 180 }
        return acos(min(max((a * b).sum() / (la * lb), -1), 1)) * 180 / .pi
    }
}
