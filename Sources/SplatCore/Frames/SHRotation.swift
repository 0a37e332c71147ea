/// Rotation matrices for the real SH coefficients of every band, for any proper rotation
/// (`formats-gltf.md` 12.6; `FrameConversion` covers only the 48 signed permutations).
///
/// Each band's matrix is the projection D_l[a][b] = ∫ Y_a(d) · Y_b(Rᵀ d) dd over the sphere.
/// The basis functions are orthonormal, and the integrand is a spherical polynomial of degree at
/// most 2l ≤ 8, so a product rule (5 Gauss–Legendre nodes in z, exact to degree 9, times 12
/// equal steps in azimuth, exact for frequencies below 12) integrates it exactly: the result is
/// the true Wigner matrix up to rounding (~1e-15), with no fitting and no linear solve.
public enum SHRotation {
    /// Per band l = 1...maxDegree, the (2l+1)² matrix D_l, row-major on band-local indices, such
    /// that Σ_a c'_a Y_a(d) = Σ_b c_b Y_b(Rᵀ d) for every direction d when c' = D_l c: the
    /// coefficients of the same lighting turned by `rotation` (the view direction maps as
    /// d_world = R d_local). Entries within 1e-12 of 0 or ±1 are snapped, so axis-aligned turns
    /// give exact signed permutations.
    public static func bandMatrices(_ rotation: Matrix3, maxDegree: Int) -> [[Double]] {
        guard maxDegree >= 1 else { return [] }
        let inverse = rotation.transposed
        let samples = quadrature.map { node in
            (weight: node.weight, here: SphericalHarmonics.basis(node.direction),
             turned: SphericalHarmonics.basis(inverse * node.direction))
        }
        var result: [[Double]] = []
        for l in 1...min(maxDegree, 4) {
            let n = 2 * l + 1, lo = l * l - 1
            var d = [Double](repeating: 0, count: n * n)
            for s in samples {
                for a in 0..<n {
                    let ya = s.weight * s.here[lo + a]
                    for b in 0..<n { d[a * n + b] += ya * s.turned[lo + b] }
                }
            }
            for i in d.indices {
                for exact in [-1.0, 0.0, 1.0] where abs(d[i] - exact) < 1e-12 { d[i] = exact }
            }
            result.append(d)
        }
        return result
    }

    /// Whether the band matrices of `rotation` are all the identity (a rotation of ~0).
    public static func isIdentity(_ matrices: [[Double]]) -> Bool {
        matrices.allSatisfy { d in
            let n = Int(Double(d.count).squareRoot())
            return d.indices.allSatisfy { d[$0] == ($0 / n == $0 % n ? 1 : 0) }
        }
    }

    /// The product rule's 60 directions and weights (summing to 4π).
    private static let quadrature: [(direction: SIMD3<Double>, weight: Double)] = {
        let nodes: [(z: Double, w: Double)] = [
            (-0.9061798459386640, 0.2369268850561891), (-0.5384693101056831, 0.4786286704993665),
            (0, 0.5688888888888889),
            (0.5384693101056831, 0.4786286704993665), (0.9061798459386640, 0.2369268850561891),
        ]
        let steps = 12
        var out: [(SIMD3<Double>, Double)] = []
        for node in nodes {
            let r = (1 - node.z * node.z).squareRoot()
            for k in 0..<steps {
                let phi = 2 * Double.pi * Double(k) / Double(steps)
                out.append((SIMD3(r * cos(phi), r * sin(phi), node.z), node.w * 2 * Double.pi / Double(steps)))
            }
        }
        return out
    }()
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
