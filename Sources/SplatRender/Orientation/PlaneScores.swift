/// RANSAC scores of eight candidate planes over one set of points, a plane per SIMD lane: MSAC
/// support (Σ w·max(0, 1 − (d/band)²) / Σ w) times how far the off-plane weight is from evenly
/// split (nothing below 60 % on one side, full from 95 %).
///
/// The planes share the loop over the points, which `GroundPlane.find` spends most of its time
/// in: one pass reads each point once for eight planes, where a pass per plane summed one lane at
/// a time. Each lane still adds the points in their order, so a score is the one a plane alone
/// would get, bit for bit — the hypothesis chosen does not depend on how planes are grouped.
struct PlaneScores {
    static let lanes = 8

    /// The planes as `a·x + b·y + c·z − o` in units of the inlier band (|d| < 1 on the plane).
    struct Planes {
        var a = SIMD8<Float>(), b = SIMD8<Float>(), c = SIMD8<Float>(), o = SIMD8<Float>()

        /// Lane `lane`: the plane `normal · p = offset` with band half-width `1 / scale`.
        mutating func set(_ lane: Int, normal: SIMD3<Double>, offset: Double, scale: Double) {
            let s = Float(scale)
            a[lane] = Float(normal.x) * s
            b[lane] = Float(normal.y) * s
            c[lane] = Float(normal.z) * s
            o[lane] = Float(offset) * s
        }
    }

    private var msac = SIMD8<Float>(), above = SIMD8<Float>(), below = SIMD8<Float>()
    private var total: Float = 0

    /// Scores `planes` over the points (xs, ys, zs) with weights `ws`, all the same length.
    init(_ xs: [Float], _ ys: [Float], _ zs: [Float], _ ws: [Float], _ planes: Planes) {
        let (a, b, c, o) = (planes.a, planes.b, planes.c, planes.o)
        var msac = SIMD8<Float>(), above = SIMD8<Float>(), below = SIMD8<Float>(), total: Float = 0
        let zero = SIMD8<Float>(), one = SIMD8<Float>(repeating: 1), two = SIMD8<Float>(repeating: 2)
        xs.withUnsafeBufferPointer { x in
            ys.withUnsafeBufferPointer { y in
                zs.withUnsafeBufferPointer { z in
                    ws.withUnsafeBufferPointer { w in
                        for k in 0..<w.count {
                            let d = a * x[k] + b * y[k] + c * z[k] - o
                            let weight = SIMD8<Float>(repeating: w[k])
                            // max(0, 1 − d²) as the scalar max gives it (0 for NaN), compare and
                            // blend: the standard library's pointwiseMax is a call per point.
                            let inside = one - d * d
                            msac += weight * zero.replacing(with: inside, where: inside .>= zero)
                            above += zero.replacing(with: weight, where: d .> two)
                            below += zero.replacing(with: weight, where: d .< -two)
                            total += w[k]
                        }
                    }
                }
            }
        }
        (self.msac, self.above, self.below, self.total) = (msac, above, below, total)
    }

    /// The score of lane `lane`; 0 when the points weigh nothing.
    func score(_ lane: Int) -> Double {
        guard total > 0 else { return 0 }
        let above = above[lane], below = below[lane]
        let oneSided = Double(max(above, below) / max(above + below, .leastNormalMagnitude))
        return Double(msac[lane] / total) * unitClamp((oneSided - 0.6) / 0.35)
    }
}
