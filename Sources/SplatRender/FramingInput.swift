import Foundation
import SplatCore

/// The splats automatic framing reads, at the fixed stride of `FramingSample` (every splat of a
/// scene up to 65,536 of them): centre, opacity and largest log-scale, with the splat's index.
/// A `RenderSceneBuilder` keeps these as the chunks pass, so a scene framed from its compact form
/// is framed exactly as its decoded form would be.
struct SampledSplats: Sendable {
    var x: [Float] = []
    var y: [Float] = []
    var z: [Float] = []
    var alpha: [Float] = []
    var largestLogScale: [Float] = []
    var index: [Int] = []

    /// The stride through a scene of `count` splats.
    static func step(count: Int) -> Int { max(1, (count + FramingSample.maximumCount - 1) / FramingSample.maximumCount) }

    init() {}

    init(_ scene: SplatScene) {
        let n = scene.count
        let step = Self.step(count: n)
        let xs = scene.columnBase(.x), ys = scene.columnBase(.y), zs = scene.columnBase(.z)
        let alpha = scene.columnBase(.alpha)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        for i in stride(from: 0, to: n, by: step) {
            append(index: i, x: xs[i], y: ys[i], z: zs[i], alpha: alpha[i], largestLogScale: max(sx[i], sy[i], sz[i]))
        }
    }

    mutating func append(index i: Int, x px: Float, y py: Float, z pz: Float, alpha a: Float, largestLogScale s: Float) {
        index.append(i)
        x.append(px)
        y.append(py)
        z.append(pz)
        alpha.append(a)
        largestLogScale.append(s)
    }
}

/// What `AutoFramer` frames: a decoded scene, or the samples and largest log-scale a builder kept.
enum FramingInput: Sendable {
    case scene(SplatScene)
    case sampled(SampledSplats, largestLogScale: Float)

    var sample: FramingSample {
        switch self {
        case .scene(let scene): FramingSample(scene)
        case .sampled(let sampled, _): FramingSample(sampled)
        }
    }

    /// See `AutoFramer.fallbackRadius`.
    var fallbackRadius: Double {
        switch self {
        case .scene(let scene): return AutoFramer.fallbackRadius(scene)
        case .sampled(_, let largest):
            let r = 3 * exp(Double(largest))
            return r.isFinite && r > 1e-6 ? r : 1
        }
    }
}
