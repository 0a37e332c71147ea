import Foundation
import Testing
import SplatCore
@testable import SplatFormats
import TestSupport

@Suite("PLYEncoder")
struct PLYEncoderTests {
    /// A scene of `n` random splats at `degree`, with unit quaternions and a few edge values.
    static func randomScene(n: Int, degree: Int, model: SplatModel, seed: UInt64) -> SplatScene {
        var rng = SplitMix64(seed: seed)
        let scene = SplatScene(count: n, shDegree: degree)
        scene.model = model
        for c in SplatScene.Column.allCases {
            let col = scene.column(c)
            for i in 0..<n { col[i] = Float.random(in: -5...5, using: &rng) }
        }
        for i in 0..<n {
            scene.alpha[i] = Float.random(in: 0...1, using: &rng)
            var q = SIMD4<Float>(scene.rotW[i], scene.rotX[i], scene.rotY[i], scene.rotZ[i])
            q /= (q * q).sum().squareRoot()
            scene.rotW[i] = q.x; scene.rotX[i] = q.y; scene.rotY[i] = q.z; scene.rotZ[i] = q.w
        }
        for j in 0..<scene.sh.count { scene.sh[j] = Float.random(in: -1...1, using: &rng) }
        if n > 3 {
            scene.alpha[0] = 0
            scene.alpha[1] = 1
            scene.logScaleZ[2] = -.infinity
        }
        return scene
    }

    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        try withTestBytes(bytes) { raw throws(SplatError) in try PLYDecoder.decode(raw, file: "round.ply", limits: limits) }
    }

    @Test("scene → PLYEncoder → PLYDecoder gives the same values", arguments: [
        (0, SplatModel.default), (1, .antialiased), (2, .twoDGS), (3, .default), (4, .antialiased),
    ])
    func roundTrip(degree: Int, model: SplatModel) throws {
        let scene = Self.randomScene(n: 10_000 + degree, degree: degree, model: model, seed: UInt64(degree + 1))
        let bytes = PLYEncoder.encode(scene)
        let back = try Self.decode(bytes).scene
        #expect(back.count == scene.count)
        #expect(back.shDegree == degree)
        #expect(back.model == model)
        for c in SplatScene.Column.allCases where c != .alpha {
            let a = scene.column(c), b = back.column(c)
            var worst: Float = 0
            for i in 0..<scene.count where a[i] != b[i] {
                // Rotations are renormalized on decode: a unit quaternion may move by an ulp.
                worst = max(worst, abs(a[i] - b[i]))
            }
            #expect(worst <= (c.rawValue >= SplatScene.Column.rotW.rawValue && c.rawValue <= SplatScene.Column.rotZ.rawValue ? 1e-6 : 0), "\(c)")
        }
        #expect(back.logScaleZ[2] == -.infinity)
        for j in 0..<scene.sh.count where scene.sh[j] != back.sh[j] {
            Issue.record("sh[\(j)] \(scene.sh[j]) vs \(back.sh[j])")
            break
        }
        // Alpha: exact up to float rounding of the logit, except where the clamp applies.
        var worstAlpha: Double = 0
        for i in 0..<scene.count {
            let want = min(1 - PLYEncoder.alphaClamp, max(PLYEncoder.alphaClamp, Double(scene.alpha[i])))
            worstAlpha = max(worstAlpha, abs(Double(back.alpha[i]) - want))
        }
        #expect(worstAlpha < 1e-6)
        #expect(abs(Double(back.alpha[0]) - 1e-6) < 1e-9)
        #expect(abs(Double(back.alpha[1]) - (1 - 1e-6)) < 1e-7)
    }

    @Test("header layout: standard 3DGS property order, model comment")
    func header() throws {
        let scene = Self.randomScene(n: 2, degree: 1, model: .antialiased, seed: 3)
        let text = PLYEncoder.header(for: scene)
        let expected = ["ply", "format binary_little_endian 1.0", "comment SplatRenderMode: mip", "element vertex 2"]
            + ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"].map { "property float \($0)" }
            + (0..<9).map { "property float f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"].map { "property float \($0)" }
            + ["end_header", ""]
        #expect(text == expected.joined(separator: "\n"))
        scene.model = .default
        #expect(!PLYEncoder.header(for: scene).contains("comment"))
        scene.model = .twoDGS
        #expect(PLYEncoder.header(for: scene).contains("comment SplatRenderMode: 2dgs\n"))
    }

    @Test("row bytes: channel-major f_rest, logit opacity, rot_0 = w, zero normals")
    func rowBytes() throws {
        let scene = SplatScene(count: 1, shDegree: 1, zeroed: true)
        scene.x[0] = 1; scene.y[0] = 2; scene.z[0] = 3
        scene.dcR[0] = 0.5; scene.dcG[0] = 0.25; scene.dcB[0] = -0.5
        for k in 0..<3 { for c in 0..<3 { scene.sh[k * 3 + c] = Float(10 * c + k) } }
        scene.alpha[0] = 0.75
        scene.logScaleX[0] = -1; scene.logScaleY[0] = -2; scene.logScaleZ[0] = -.infinity
        scene.rotW[0] = 0.5; scene.rotX[0] = -0.5; scene.rotY[0] = 0.5; scene.rotZ[0] = -0.5
        let bytes = PLYEncoder.encode(scene)
        let head = PLYEncoder.header(for: scene).utf8.count
        #expect(bytes.count == head + 26 * 4)
        let floats: [Float] = (0..<26).map { j in
            let b = bytes[(head + 4 * j)..<(head + 4 * j + 4)]
            return Float(bitPattern: b.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        let logit = Float(log(0.75 / 0.25))
        #expect(floats == [1, 2, 3, 0, 0, 0, 0.5, 0.25, -0.5,
                           0, 1, 2, 10, 11, 12, 20, 21, 22,
                           logit, -1, -2, -.infinity, 0.5, -0.5, 0.5, -0.5])
    }

    @Test("corpus PLY → decode → encode → decode is stable; write(to:) is atomic and readable")
    func corpusRoundTrip() throws {
        let path = Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")
        let first = try SplatFile.decode(path: path).scene
        let dir = try Fixtures.temporaryDirectory("plyenc")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("fruit.ply").path
        try PLYEncoder.write(first, to: out)
        let second = try SplatFile.decode(path: out).scene
        #expect(second.count == first.count && second.shDegree == 3)
        var worst: Float = 0
        for c in SplatScene.Column.allCases where c != .alpha {
            for i in 0..<first.count { worst = max(worst, abs(first.column(c)[i] - second.column(c)[i])) }
        }
        #expect(worst <= 1e-6)
        #expect(zip(first.sh, second.sh).allSatisfy { $0 == $1 })
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(leftovers == ["fruit.ply"])
    }
}
