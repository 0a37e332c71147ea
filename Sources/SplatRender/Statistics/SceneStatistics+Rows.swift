import Foundation

extension SceneStatistics {
    /// The statistics as label/value lines for `info --stats` text output, in report order.
    /// Numbers use up to 6 significant digits; counts are exact.
    public var rows: [(label: String, value: String)] {
        var out: [(String, String)] = [
            ("splats", "\(splatCount)"),
            ("sh degree", "\(shDegree) stored, \(effectiveSHDegree) effective"),
            ("file size", fileBytes.map(Self.bytes) ?? "unknown"),
            ("decoded size", Self.bytes(decodedBytes)),
            ("compression ratio", compressionRatio.map { Self.number($0) + "× (decoded / file)" } ?? "unknown"),
        ]
        for (key, s) in namedAttributes { out.append((key.replacingOccurrences(of: "_", with: " "), Self.describe(s))) }
        out.append(("opacity p1/p50/p99", opacityPercentiles.map(Self.describe) ?? "none"))
        out.append(("scale p1/p50/p99", scalePercentiles.map { Self.describe($0) + " (largest axis, linear)" } ?? "none"))
        if let box = robustBox {
            let who = box.opaqueOnly ? "opacity ≥ \(Self.number(Double(RobustBox.minimumOpacity)))" : "all finite centres"
            out.append(("robust box", "\(Self.vector(box.lower)) … \(Self.vector(box.upper)) (p1–p99 of \(box.splatCount) splats, \(who))"))
        } else {
            out.append(("robust box", "none"))
        }
        if let o = overdraw {
            let divisor = o.crossSection == .largestBoxFace ? "largest box face" : "median footprint"
            out.append(("overdraw", "\(Self.number(o.ratio)) (footprints \(Self.number(o.footprintArea)) of \(o.splatCount) splats / \(divisor) \(Self.number(o.crossSectionArea)))"))
        } else {
            out.append(("overdraw", "none"))
        }
        return out
    }

    private static func describe(_ s: AttributeStatistics) -> String {
        var text: String
        if let lo = s.minimum, let hi = s.maximum, let mean = s.mean, let std = s.standardDeviation {
            text = "min \(number(lo))  max \(number(hi))  mean \(number(mean))  std \(number(std))"
        } else {
            text = "no finite values"
        }
        let odd = [(s.nanCount, "NaN"), (s.positiveInfinityCount, "+Inf"), (s.negativeInfinityCount, "−Inf")].filter { $0.0 > 0 }
        if !odd.isEmpty { text += "  (" + odd.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")" }
        return text
    }

    private static func describe(_ p: Percentiles) -> String { "\(number(p.p1)) / \(number(p.p50)) / \(number(p.p99))" }

    private static func number(_ v: Double) -> String { String(format: "%.6g", v) }

    private static func vector(_ v: SIMD3<Double>) -> String { "(\(number(v.x)), \(number(v.y)), \(number(v.z)))" }

    private static func bytes(_ n: Int) -> String {
        n < 1 << 20 ? "\(n) B" : String(format: "%.1f MiB (%d B)", Double(n) / 1_048_576, n)
    }
}
