import Foundation
import Testing
import SplatCore
import TestSupport

/// Largest absolute component difference.
private func maxDiff<V: SIMD>(_ a: V, _ b: V) -> Double where V.Scalar: BinaryFloatingPoint {
    var m = 0.0
    for i in a.indices { m = max(m, abs(Double(a[i]) - Double(b[i]))) }
    return m
}

/// A splat with degree-4 SH and a generic rotation, in a scene of one.
private func sampleScene(degree: Int = 4) -> SplatScene {
    let s = SplatScene(count: 1, shDegree: degree)
    s.x[0] = 0.7; s.y[0] = -1.3; s.z[0] = 2.1
    s.logScaleX[0] = -1.2; s.logScaleY[0] = -0.4; s.logScaleZ[0] = -2.0
    let q = SIMD4<Float>(0.8, 0.3, -0.4, 0.2)
    let n = q / (q * q).sum().squareRoot()
    s.rotW[0] = n.x; s.rotX[0] = n.y; s.rotY[0] = n.z; s.rotZ[0] = n.w
    s.alpha[0] = 0.7; s.dcR[0] = 0.3; s.dcG[0] = -0.2; s.dcB[0] = 0.5
    for j in 0..<s.sh.count { s.sh[j] = Float(j % 7) * 0.05 - 0.15 + Float(j) * 0.001 }
    return s
}

private func copyScene(_ s: SplatScene) -> SplatScene {
    let c = SplatScene(count: s.count, shDegree: s.shDegree)
    for col in SplatScene.Column.allCases { c.column(col).baseAddress!.update(from: s.column(col).baseAddress!, count: s.count) }
    c.sh.baseAddress!.update(from: s.sh.baseAddress!, count: s.sh.count)
    return c
}

/// World covariance of splat 0 for a scene in `frame`: B · R S² Rᵀ · Bᵀ.
private func worldCovariance(_ s: SplatScene, frame: CoordinateSystem) -> [[Double]] {
    let sigma = splatCovariance(s)
    let (ax, ay, az) = frame.axes
    let b = [[ax.x, ay.x, az.x], [ax.y, ay.y, az.y], [ax.z, ay.z, az.z]].map { $0.map(Double.init) }
    var out = [[Double]](repeating: [0, 0, 0], count: 3)
    for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { for l in 0..<3 { out[i][j] += b[i][k] * sigma[k][l] * b[j][l] } } } }
    return out
}

/// The SH colour of splat 0 seen along `worldDirection`, evaluated in the scene's own `frame`.
private func colour(_ s: SplatScene, frame: CoordinateSystem, worldDirection d: SIMD3<Double>) -> SIMD3<Double> {
    let (ax, ay, az) = frame.axes
    // Coordinates of the world direction in the frame: Bᵀ · d.
    let local = SIMD3<Double>((SIMD3<Double>(ax) * d).sum(), (SIMD3<Double>(ay) * d).sum(), (SIMD3<Double>(az) * d).sum())
    let sh = (0..<s.shCoefficientsPerChannel).map { SIMD3<Double>(s.shCoefficient(0, $0)) }
    return SphericalHarmonics.evaluate(dc: SIMD3<Double>(s.dc(0)), sh: sh, direction: local)
}

private extension SIMD3 where Scalar == Double {
    init(_ v: SIMD3<Float>) { self.init(Double(v.x), Double(v.y), Double(v.z)) }
}

@Suite struct FrameConversionTests {
    @Test func allPairsPreserveGeometryAndColour() {
        let directions: [SIMD3<Double>] = [SIMD3(0.3, -0.5, 0.81), SIMD3(-0.9, 0.1, 0.42), SIMD3(0.0, 1.0, 0.0), SIMD3(0.57, 0.57, -0.59)]
            .map { $0 / ($0 * $0).sum().squareRoot() }
        var pairs = 0
        for from in CoordinateSystem.allCases {
            for to in CoordinateSystem.allCases {
                let original = sampleScene()
                let converted = copyScene(original)
                FrameConversion(from: from, to: to).apply(to: converted, threads: 1)
                // The same world point.
                let (fx, fy, fz) = from.axes, (tx, ty, tz) = to.axes
                let pw0 = fx * original.x[0] + fy * original.y[0] + fz * original.z[0]
                let pw1 = tx * converted.x[0] + ty * converted.y[0] + tz * converted.z[0]
                #expect(maxDiff(pw0, pw1) < 1e-6, "position \(from.name)→\(to.name)")
                // The same world covariance.
                let c0 = worldCovariance(original, frame: from), c1 = worldCovariance(converted, frame: to)
                for i in 0..<3 { for j in 0..<3 { #expect(abs(c0[i][j] - c1[i][j]) < 1e-5, "covariance \(from.name)→\(to.name)") } }
                // The same colour in every world direction.
                for d in directions {
                    let a = colour(original, frame: from, worldDirection: d), b = colour(converted, frame: to, worldDirection: d)
                    #expect(maxDiff(a, b) < 1e-5, "SH \(from.name)→\(to.name)")
                }
                // And back again.
                FrameConversion(from: to, to: from).apply(to: converted, threads: 1)
                #expect(maxDiff(converted.position(0), original.position(0)) < 1e-6)
                // Across families the quaternion may come back as a half turn of the splat's own axes
                // (F·R·F vs R), which is the same ellipsoid: compare the covariance instead.
                let r0 = worldCovariance(original, frame: from), r1 = worldCovariance(converted, frame: from)
                for i in 0..<3 { for j in 0..<3 { #expect(abs(r0[i][j] - r1[i][j]) < 1e-5, "round trip \(from.name)↔\(to.name)") } }
                for j in 0..<original.sh.count { #expect(abs(original.sh[j] - converted.sh[j]) < 1e-5) }
                pairs += 1
            }
        }
        #expect(pairs == 256)
    }

    @Test func halfTurnAboutXMatchesSection7_5() {
        let s = sampleScene()
        let before = copyScene(s)
        FrameConversion(from: .rub, to: .rdf).apply(to: s)
        #expect(FrameConversion(from: .rub, to: .rdf) == .halfTurnX)
        #expect(s.position(0) == SIMD3(before.x[0], -before.y[0], -before.z[0]))
        #expect(s.rotation(0) == SIMD4(before.rotW[0], before.rotX[0], -before.rotY[0], -before.rotZ[0]))
        let negated: Set<Int> = [0, 1, 3, 6, 8, 10, 11, 13, 15, 17, 20, 22]
        for k in 0..<24 {
            let sign: Float = negated.contains(k) ? -1 : 1
            #expect(s.shCoefficient(0, k) == sign * before.shCoefficient(0, k), "k = \(k)")
        }
    }

    @Test func crossFamilyQuaternionFollowsSection7_6() {
        // RUB → RFU is a pure +90° turn about X: (x, y, z) → (x, −z, y).
        let c = FrameConversion(from: .rub, to: .rfu)
        #expect(c.swapsYZ && c.flips == SIMD3(1, 1, 1))
        #expect(c.apply(point: SIMD3(1, 2, 3)) == SIMD3(1, -3, 2))
        let q = c.apply(quaternion: SIMD4(1, 0, 0, 0))
        #expect(maxDiff(q, SIMD4<Float>(0.70710677, 0.70710677, 0, 0)) < 1e-7)
    }

    @Test func namesParseAndHandednessMatchesTheTable() {
        let rightHanded: Set<String> = ["RUB", "RDF", "LUF", "LDB", "RFU", "LFD", "RBD", "LBU"]
        for c in CoordinateSystem.allCases {
            #expect(CoordinateSystem(name: c.name.lowercased()) == c)
            #expect(c.isRightHanded == rightHanded.contains(c.name), "\(c.name)")
        }
        #expect(CoordinateSystem(name: "ply") == .rdf)
        #expect(CoordinateSystem(name: "XYZ") == nil)
        #expect(CoordinateSystem.rub.rawValue == 4 && CoordinateSystem.rdf.rawValue == 6 && CoordinateSystem.rbu.rawValue == 16)
    }

    @Test func frameDecisionOrder() {
        let s = SplatScene(count: 1, shDegree: 0, zeroed: true)
        s.conventionalFrame = .rub
        #expect(FrameDecision.decide(for: s).sourceFrame == .rub)
        #expect(FrameDecision.decide(for: s).reason == .formatDefault)
        s.declaredFrame = .rdf
        #expect(FrameDecision.decide(for: s).sourceFrame == .rdf)
        #expect(FrameDecision.decide(for: s).reason == .fileDeclaration)
        let explicit = FrameDecision.decide(for: s, options: FrameOptions(sourceFrame: .luf, flip: true))
        #expect(explicit.sourceFrame == .luf && explicit.reason == .option)
        // LUF → RUB mirrors x; the flip then turns half about X.
        #expect(explicit.conversion.apply(point: SIMD3(1, 2, 3)) == SIMD3(-1, -2, 3))
    }
}
