import SplatCore
import SplatRender

/// Hand-built scenes for renderer tests.
enum TestScenes {
    struct Splat {
        var position: SIMD3<Float>
        var logScale: SIMD3<Float> = SIMD3(repeating: -2.302585) // s = 0.1
        var rotation: SIMD4<Float> = SIMD4(1, 0, 0, 0) // (w, x, y, z)
        var alpha: Float = 0.8
        var dc: SIMD3<Float> = SIMD3(repeating: 0)
        /// Non-DC SH coefficients (R, G, B), coefficient-major.
        var sh: [SIMD3<Float>] = []
    }

    static func scene(_ splats: [Splat], shDegree: Int = 0, model: SplatModel = .default) -> SplatScene {
        let scene = SplatScene(count: splats.count, shDegree: shDegree, zeroed: true)
        scene.model = model
        let dim = scene.shCoefficientsPerChannel
        for (i, s) in splats.enumerated() {
            scene.x[i] = s.position.x; scene.y[i] = s.position.y; scene.z[i] = s.position.z
            scene.logScaleX[i] = s.logScale.x; scene.logScaleY[i] = s.logScale.y; scene.logScaleZ[i] = s.logScale.z
            scene.rotW[i] = s.rotation[0]; scene.rotX[i] = s.rotation[1]
            scene.rotY[i] = s.rotation[2]; scene.rotZ[i] = s.rotation[3]
            scene.alpha[i] = s.alpha
            scene.dcR[i] = s.dc.x; scene.dcG[i] = s.dc.y; scene.dcB[i] = s.dc.z
            for (k, c) in s.sh.prefix(dim).enumerated() {
                for ch in 0..<3 { scene.sh[(i * dim + k) * 3 + ch] = c[ch] }
            }
        }
        return scene
    }

    /// A camera at the origin whose camera frame equals the world frame (look along +Z, up −Y).
    static let identityCamera = Camera(position: SIMD3(0, 0, 0), target: SIMD3(0, 0, 1), up: SIMD3(0, -1, 0), fovYDegrees: 60)

    /// Copies of `base` on a grid in the x–z plane until there are at least `count` splats.
    static func tiled(_ base: SplatScene, count: Int, spacing: SIMD2<Float>) -> SplatScene {
        let copies = (count + base.count - 1) / base.count
        let side = Int(Double(copies).squareRoot().rounded(.up))
        let out = SplatScene(count: copies * base.count, shDegree: base.shDegree)
        out.model = base.model
        let dim = base.shFloatsPerSplat
        for c in 0..<copies {
            let dx = Float(c % side) * spacing.x, dz = Float(c / side) * spacing.y
            for column in SplatScene.Column.allCases {
                let src = base.columnBase(column), dst = out.columnBase(column) + c * base.count
                for i in 0..<base.count {
                    dst[i] = src[i] + (column == .x ? dx : column == .z ? dz : 0)
                }
            }
            if dim > 0 {
                (out.sh.baseAddress! + c * base.count * dim).update(from: base.sh.baseAddress!, count: base.count * dim)
            }
        }
        return out
    }
}
