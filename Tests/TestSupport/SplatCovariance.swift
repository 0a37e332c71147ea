import Foundation
import SplatCore

/// The 3×3 covariance R S² Rᵀ of one splat in its scene's stored frame, in Double, computed
/// directly from the stored quaternion and log-scales (independent of the library's own math).
public func splatCovariance(_ s: SplatScene, _ i: Int = 0) -> [[Double]] {
    let w = Double(s.rotW[i]), x = Double(s.rotX[i]), y = Double(s.rotY[i]), z = Double(s.rotZ[i])
    let r: [[Double]] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ]
    let sc = [s.logScaleX[i], s.logScaleY[i], s.logScaleZ[i]].map { exp(2 * Double($0)) }
    var sigma = [[Double]](repeating: [0, 0, 0], count: 3)
    for a in 0..<3 { for b in 0..<3 { for k in 0..<3 { sigma[a][b] += r[a][k] * sc[k] * r[b][k] } } }
    return sigma
}
