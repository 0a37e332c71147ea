import Foundation

/// The direction most surfaces face: the densest cone of disc normals (sign-free, a normal and its
/// opposite are the same disc). On a capture with a floor, a road or a field, the ground's discs
/// outnumber any wall's, so this is the ground's normal; on a single object it is whichever side
/// is broadest, which is why its vote is weighed against the others.
struct SurfaceNormalMode {
    /// Half-angle of the cone a normal must fall in to count for a direction.
    static let coneDegrees = 15.0
    /// Discs scored per candidate direction: a fixed-stride subset (the mode moves little once
    /// the candidates are this well sampled; the refinement then uses every disc).
    static let scoringSubset = 4096
    /// Discs whose normals become candidate directions, besides the three principal axes.
    static let seedCount = 32
    /// Below this many discs there is no surface to speak of.
    static let minimumDiscs = 16

    /// The mode's line (unit; either sign), nil without enough discs.
    let direction: SIMD3<Double>?
    /// Fraction of the disc weight within the cone around `direction`.
    let fraction: Double

    init(_ sample: OrientationSample) {
        let discs = sample.discs
        guard discs.count >= Self.minimumDiscs else { direction = nil; fraction = 0; return }
        var candidates = SymmetricEigen3(Self.orientationTensor(sample)).vectors
        let seedStep = max(1, discs.count / Self.seedCount)
        for j in stride(from: 0, to: discs.count, by: seedStep) { candidates.append(sample.normal(discs[j])) }
        let scoreStep = max(1, discs.count / Self.scoringSubset)
        let subset = Array(stride(from: 0, to: discs.count, by: scoreStep).map { discs[$0] })
        var best = candidates[0], bestScore = -1.0
        for c in candidates {
            let score = Self.coneWeight(sample, subset, around: c)
            if score > bestScore { best = c; bestScore = score }
        }
        // Mean shift: the cone's normals, flipped onto the current direction, averaged.
        for _ in 0..<5 {
            let sum = Self.coneSum(sample, around: best)
            let length = (sum * sum).sum().squareRoot()
            guard length > 0, length.isFinite else { break }
            best = sum / length
        }
        direction = best
        fraction = Self.fraction(sample, along: best)
    }

    /// Fraction of the disc weight whose normals lie within the cone around the line `line`.
    static func fraction(_ sample: OrientationSample, along line: SIMD3<Double>) -> Double {
        var total = 0.0
        for k in sample.discs { total += Double(sample.normalWeight[k]) }
        guard total > 0 else { return 0 }
        return coneWeight(sample, sample.discs, around: line) / total
    }

    /// Σ w n nᵀ over the discs.
    private static func orientationTensor(_ sample: OrientationSample) -> [SIMD3<Double>] {
        var xx = 0.0, xy = 0.0, xz = 0.0, yy = 0.0, yz = 0.0, zz = 0.0
        sample.nx.withUnsafeBufferPointer { nx in
            sample.ny.withUnsafeBufferPointer { ny in
                sample.nz.withUnsafeBufferPointer { nz in
                    sample.normalWeight.withUnsafeBufferPointer { w in
                        for k in sample.discs {
                            let a = Double(nx[k]), b = Double(ny[k]), c = Double(nz[k]), wk = Double(w[k])
                            xx += wk * a * a; xy += wk * a * b; xz += wk * a * c; yy += wk * b * b; yz += wk * b * c; zz += wk * c * c
                        }
                    }
                }
            }
        }
        return [SIMD3(xx, xy, xz), SIMD3(xy, yy, yz), SIMD3(xz, yz, zz)]
    }

    /// Σ w n over the discs whose normals lie in the cone around `line`, each flipped onto it.
    private static func coneSum(_ sample: OrientationSample, around line: SIMD3<Double>) -> SIMD3<Double> {
        let cosine = cos(coneDegrees * .pi / 180)
        var sx = 0.0, sy = 0.0, sz = 0.0
        sample.nx.withUnsafeBufferPointer { nx in
            sample.ny.withUnsafeBufferPointer { ny in
                sample.nz.withUnsafeBufferPointer { nz in
                    sample.normalWeight.withUnsafeBufferPointer { w in
                        for k in sample.discs {
                            let a = Double(nx[k]), b = Double(ny[k]), c = Double(nz[k])
                            let dot = a * line.x + b * line.y + c * line.z
                            guard abs(dot) > cosine else { continue }
                            let wk = dot < 0 ? -Double(w[k]) : Double(w[k])
                            sx += wk * a; sy += wk * b; sz += wk * c
                        }
                    }
                }
            }
        }
        return SIMD3(sx, sy, sz)
    }

    private static func coneWeight(_ sample: OrientationSample, _ discs: [Int], around line: SIMD3<Double>) -> Double {
        let cosine = cos(coneDegrees * .pi / 180)
        var sum = 0.0
        sample.nx.withUnsafeBufferPointer { nx in
            sample.ny.withUnsafeBufferPointer { ny in
                sample.nz.withUnsafeBufferPointer { nz in
                    sample.normalWeight.withUnsafeBufferPointer { w in
                        for k in discs {
                            let dot = Double(nx[k]) * line.x + Double(ny[k]) * line.y + Double(nz[k]) * line.z
                            if abs(dot) > cosine { sum += Double(w[k]) }
                        }
                    }
                }
            }
        }
        return sum
    }
}
