import Foundation

/// One of the six signed coordinate axes of a frame (+X … −Z): the answer the up estimator gives
/// and what `--up +y` names. It refers to the stored coordinates of whatever frame it is used
/// with; it does not say which frame that is.
public enum SignedAxis: String, Sendable, CaseIterable, Codable {
    case plusX = "+X", minusX = "-X", plusY = "+Y", minusY = "-Y", plusZ = "+Z", minusZ = "-Z"

    /// 0, 1, 2 for X, Y, Z.
    public var index: Int {
        switch self {
        case .plusX, .minusX: 0
        case .plusY, .minusY: 1
        case .plusZ, .minusZ: 2
        }
    }

    /// +1 or −1.
    public var sign: Double {
        switch self {
        case .plusX, .plusY, .plusZ: 1
        case .minusX, .minusY, .minusZ: -1
        }
    }

    /// The unit vector of this axis.
    public var vector: SIMD3<Double> {
        var v = SIMD3<Double>.zero
        v[index] = sign
        return v
    }

    public var negated: SignedAxis { SignedAxis(index: index, positive: sign < 0) }

    public init(index: Int, positive: Bool) {
        precondition((0..<3).contains(index), "an axis index is 0, 1 or 2")
        let all: [SignedAxis] = positive ? [.plusX, .plusY, .plusZ] : [.minusX, .minusY, .minusZ]
        self = all[index]
    }

    /// Parses "+X", "x", "-y", "−Z" (Unicode minus), case-insensitively; a bare letter is positive.
    public init?(name: String) {
        var text = Substring(name.trimmingCharacters(in: .whitespaces).uppercased())
        var positive = true
        if let first = text.first, first == "+" || first == "-" || first == "\u{2212}" {
            positive = first == "+"
            text = text.dropFirst()
        }
        guard text.count == 1, let letter = text.first, let index = "XYZ".firstIndex(of: letter) else { return nil }
        self.init(index: "XYZ".distance(from: "XYZ".startIndex, to: index), positive: positive)
    }

    /// The axis nearest to `v` (its largest component by magnitude; the lower axis on a tie), or
    /// nil when `v` is zero or not finite.
    public static func nearest(to v: SIMD3<Double>) -> SignedAxis? {
        guard v.x.isFinite, v.y.isFinite, v.z.isFinite else { return nil }
        let magnitudes = [abs(v.x), abs(v.y), abs(v.z)]
        var best = 0
        for i in 1..<3 where magnitudes[i] > magnitudes[best] { best = i }
        guard magnitudes[best] > 0 else { return nil }
        return SignedAxis(index: best, positive: v[best] > 0)
    }
}

extension CoordinateSystem {
    /// The stored axis whose direction is up (the U or D letter: D gives the negative axis). Every
    /// named frame has one: Y in the standard family, Z in the rotated one.
    public var upAxis: SignedAxis {
        let (ax, ay, az) = axes
        // The stored axis whose direction has a non-zero world-up (U = +y) component.
        let components = [ax.y, ay.y, az.y]
        let index = components.firstIndex { $0 != 0 }!
        return SignedAxis(index: index, positive: components[index] > 0)
    }
}
