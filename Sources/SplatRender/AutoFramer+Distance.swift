import Foundation
import SplatCore

extension AutoFramer {
    /// Fraction of the centres the near clearance applies to.
    static let nearFraction = 0.98
    /// Only centres inside the robust box grown by this fraction of its size per side shape the
    /// distance: far floaters and sky shells cannot pull the camera back, while the extremities
    /// just past the 2–98 % box (a head, a headstock, a tile's corners) still count.
    static let fitBoxGrowth = 0.25
    /// Azimuths per elevation whose distances are combined, evenly spaced from the default
    /// azimuth: with 24 (every 15°) the views between them (a 36-frame turntable, a sheet
    /// starting elsewhere) also stayed out of the padding on every corpus object scene.
    static let viewCount = 24
    /// Pixels added to the padding on each side: the renderer's 0.3 px² dilation keeps even a
    /// point-sized splat more than half opaque about 0.65 px from its centre, and a pixel counts
    /// by its centre.
    static let pixelAllowance = 1.5
    /// Below this ratio of the smaller to the larger horizontal variance the subject has a broad
    /// side to face; above it, the orbit starts from `preferredSide`.
    static let anisotropyRatio = 0.6
    /// Every centre is padded by at least this many standard deviations of its widest axis:
    /// splats fainter than ½ make pixels more than half opaque only where several overlap, within
    /// about 1σ of their centres (without this floor the fruit's haze reached the image edge;
    /// with it every object scene of the corpus stays out of the padding).
    static let minimumSigmaPadding = 1.0

    /// How far from its centre, in standard deviations of its widest axis, a splat of opacity
    /// `alpha` alone is more than half opaque: o·exp(−r²/2) > ½ ⇔ r < √(2 ln 2o) (with the
    /// renderer's 0.99 cap, at most 1.17); 0 for o ≤ ½, which no single splat of it can make solid.
    static func solidRadius(alpha: Float) -> Double {
        let o = min(Double(alpha), 0.99)
        return o > 0.5 ? (2 * log(2 * o)).squareRoot() : 0
    }

    /// The padding of one centre: `solidRadius`, at least `minimumSigmaPadding`, times σ.
    static func paddingRadius(alpha: Float, sigma: Float) -> Float {
        Float(max(solidRadius(alpha: alpha), minimumSigmaPadding) * Double(sigma))
    }

    /// The largest, over the orbit views (`viewCount` azimuths at each of `elevationsDegrees`), of
    /// the distance keeping every centre of `sample`, each padded by its `paddingRadius`, inside
    /// the padded frame (half-angle tangents `tanX`, `tanY`), and at least `nearClearance` in
    /// front of `nearFraction` of them. The views run in parallel; each is
    /// computed alone, so the result does not depend on the thread count.
    static func fittingDistance(_ sample: FramingSample, framing: Framing, elevationsDegrees: [Double],
                                tanX: Double, tanY: Double) -> Double {
        let n = sample.count
        guard n > 0 else { return 0 }
        let views = viewCount * elevationsDegrees.count
        var padded = [Float](repeating: 0, count: n)
        for i in 0..<n { padded[i] = paddingRadius(alpha: sample.opacity[i], sigma: sample.sigma[i]) }
        var perView = [Double](repeating: 0, count: views)
        _ = perView.withUnsafeMutableBufferPointer { out in
            Parallel.forEach(iterations: views) { v in
                let k = v % viewCount, elevation = elevationsDegrees[v / viewCount]
                let azimuth = defaultAzimuthDegrees + 360 * Double(k) / Double(viewCount)
                let camera = framing.camera(azimuthDegrees: azimuth, elevationDegrees: elevation, fovYDegrees: Camera.defaultFovYDegrees)
                guard let rows = camera.rotationRows else { return }
                var needed = -Float.infinity, nearness = [Float](repeating: 0, count: n)
                for i in 0..<n {
                    let p = sample.offset(i, from: framing.center)
                    let pad = Double(padded[i])
                    let depth = (p * rows.forward).sum()
                    let sideways = abs((p * rows.right).sum()) + pad, vertical = abs((p * rows.down).sum()) + pad
                    // p lies at camera depth distance + depth, and is inside the padded frame when
                    // sideways ≤ tanX·(distance + depth) and vertical ≤ tanY·(distance + depth).
                    needed = max(needed, Float(max(sideways / tanX, vertical / tanY) - depth))
                    nearness[i] = Float(-depth)
                }
                let near = sample.weight.withUnsafeBufferPointer { w in
                    nearness.withUnsafeBufferPointer { v in
                        WeightedQuantile.quantiles(values: v, weights: w, fractions: [nearFraction])[0] ?? 0
                    }
                }
                out[v] = max(Double(needed), near + nearClearance)
            }
        }
        return perView.max() ?? 0
    }
}
