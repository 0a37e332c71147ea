import Foundation
import SplatCore
@testable import SplatRender
import Testing

/// `PlaneScores` scores eight planes in one pass; each lane must equal the one-plane loop bit for
/// bit, or grouping the hypotheses could change the ground plane chosen.
@Suite struct PlaneScoresTests {
    /// The one-plane loop: the points in order, Float sums.
    static func reference(_ xs: [Float], _ ys: [Float], _ zs: [Float], _ ws: [Float],
                          normal: SIMD3<Double>, offset: Double, scale: Double) -> Double {
        let s = Float(scale)
        let a = Float(normal.x) * s, b = Float(normal.y) * s, c = Float(normal.z) * s, o = Float(offset) * s
        var msac: Float = 0, above: Float = 0, below: Float = 0, total: Float = 0
        for k in ws.indices {
            let d = a * xs[k] + b * ys[k] + c * zs[k] - o
            msac += ws[k] * max(0, 1 - d * d)
            above += d > 2 ? ws[k] : 0
            below += d < -2 ? ws[k] : 0
            total += ws[k]
        }
        guard total > 0 else { return 0 }
        let oneSided = Double(max(above, below) / max(above + below, .leastNormalMagnitude))
        return Double(msac / total) * min(max((oneSided - 0.6) / 0.35, 0), 1)
    }

    @Test func everyLaneIsItsPlaneAlone() {
        var random = SplitMix64(seed: 7)
        func u() -> Double { Double(random.next() >> 11) / Double(1 << 53) * 2 - 1 }
        var nonZero = 0
        for round in 0..<40 {
            let n = 1 + round * 97
            // A slab near y = 0 (so some planes score well) and scattered points above it.
            var xs: [Float] = [], ys: [Float] = [], zs: [Float] = [], ws: [Float] = []
            for i in 0..<n {
                xs.append(Float(u())); zs.append(Float(u()))
                ys.append(Float(i % 3 == 0 ? 0.01 * u() : abs(u())))
                ws.append(Float(0.5 + 0.5 * u()))
            }
            var planes = PlaneScores.Planes()
            var expected: [Double] = []
            for lane in 0..<PlaneScores.lanes {
                var normal = lane == 0 ? SIMD3(0, 1, 0) : SIMD3(u(), u(), u())
                normal /= (normal * normal).sum().squareRoot()
                let offset = lane == 0 ? 0 : 0.3 * u(), scale = 1 / (0.02 + 0.05 * abs(u()))
                planes.set(lane, normal: normal, offset: offset, scale: scale)
                expected.append(Self.reference(xs, ys, zs, ws, normal: normal, offset: offset, scale: scale))
            }
            let scores = PlaneScores(xs, ys, zs, ws, planes)
            for lane in 0..<PlaneScores.lanes {
                #expect(scores.score(lane).bitPattern == expected[lane].bitPattern, "round \(round), lane \(lane)")
                if expected[lane] > 0 { nonZero += 1 }
            }
        }
        #expect(nonZero >= 40, "\(nonZero) planes scored above 0")
    }
}
