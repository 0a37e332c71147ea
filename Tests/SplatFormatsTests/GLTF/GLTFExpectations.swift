import Foundation
import SplatCore
import SplatFormats
import TestSupport

/// `vectors/gltf/expected.json` and comparisons of decoded scenes with its entries (or with
/// `splat_ref.py` output of the same shape): values to 1e-6 relative (1e-6 absolute near zero),
/// quaternions up to sign, and covariances for flattened splats.
enum GLTFExpectations {
    static let folder = Fixtures.vectors.appendingPathComponent("gltf")

    static func vector(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// The parsed expected.json.
    static var root: [String: Any] {
        let data = try! Data(contentsOf: folder.appendingPathComponent("expected.json"))
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// Entries of `files`, keyed by file name.
    static var files: [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for entry in root["files"] as! [[String: Any]] { out[entry["file"] as! String] = entry }
        return out
    }

    /// Entries of `corpus`, keyed by their path below `shared`.
    static var corpus: [String: [String: Any]] {
        var out: [String: [String: Any]] = [:]
        for entry in root["corpus"] as! [[String: Any]] { out[entry["path_from_shared"] as! String] = entry }
        return out
    }

    /// Runs splat_ref.py on a whole file and keeps the splats at `SplatRefSampler.sampleIndices`
    /// (their indices in `indices`), so large files stay cheap to compare.
    private static let script = """
        import sys, json
        sys.path.insert(0, sys.argv[1])
        import splat_ref
        r = splat_ref.detect_and_decode(sys.argv[2], limit=None)
        n = len(r["splats"])
        keep = sorted(set(list(range(min(n, 20))) + list(range(0, n, max(1, n // 40))) + list(range(max(0, n - 20), n))))
        r["indices"] = keep
        r["splats"] = [r["splats"][i] for i in keep]
        print(json.dumps(splat_ref._clean(r)))
        """

    /// splat_ref.py's decode of `path`, sampled.
    static func splatRef(_ path: String) throws -> [String: Any] {
        try SplatRefSampler.run(path, script: script)
    }

    static func close(_ got: Double, _ want: Double, tolerance: Double = 1e-6) -> Bool {
        if got.isInfinite || want.isInfinite { return got == want }
        return abs(got - want) <= tolerance * max(1, abs(want))
    }

    /// Mismatches of the listed splats; `indices` maps listed splat j to the scene's splat
    /// (identity when nil). Covariances are compared when the entry lists them.
    static func mismatches(_ scene: SplatScene, _ splats: [[String: Any]], indices: [Int]? = nil,
                           tolerance: Double = 1e-6) -> [String] {
        var out: [String] = []
        for (j, s) in splats.enumerated() {
            let i = indices?[j] ?? j
            guard i < scene.count else { out.append("splat \(i) missing (scene has \(scene.count))"); break }
            func numbers(_ key: String) -> [Double?]? {
                (s[key] as? [Any])?.map { ($0 as? NSNumber)?.doubleValue }
            }
            func check(_ name: String, _ got: [Double], _ key: String) {
                guard let want = numbers(key) else { return }
                for (k, w) in want.enumerated() {
                    // null stands for an infinite value; only −∞ log-scales are kept.
                    let expected = w ?? -.infinity
                    if !close(got[k], expected, tolerance: tolerance) { out.append("splat \(i) \(name)[\(k)] = \(got[k]), expected \(expected)") }
                }
            }
            check("position", [scene.x[i], scene.y[i], scene.z[i]].map(Double.init), "position")
            check("dc", [scene.dcR[i], scene.dcG[i], scene.dcB[i]].map(Double.init), "f_dc")
            if let a = (s["alpha"] as? NSNumber)?.doubleValue, !close(Double(scene.alpha[i]), a, tolerance: tolerance) {
                out.append("splat \(i) alpha = \(scene.alpha[i]), expected \(a)")
            }
            let q = [scene.rotW[i], scene.rotX[i], scene.rotY[i], scene.rotZ[i]].map(Double.init)
            if s["covariance"] == nil {
                check("logScale", [scene.logScaleX[i], scene.logScaleY[i], scene.logScaleZ[i]].map(Double.init), "scale_log")
                if let want = numbers("rotation_wxyz")?.map({ $0 ?? .nan }) {
                    let same = zip(q, want).allSatisfy { close($0, $1, tolerance: tolerance) }
                    let flipped = zip(q, want).allSatisfy { close(-$0, $1, tolerance: tolerance) }
                    if !same && !flipped { out.append("splat \(i) rotation = \(q), expected \(want) (up to sign)") }
                }
            } else if let want = numbers("covariance") {
                // A covariance is derived from Float32 values: exp(2·logScale) doubles the
                // log-scale's relative rounding (~5e-7 at |logScale| ≈ 5), so compare to 1e-5
                // of the largest variance.
                let got = covariance(scene, i)
                let scale = want.map { abs($0 ?? 0) }.max() ?? 1
                for k in 0..<6 where !(abs(got[k] - (want[k] ?? .nan)) <= 10 * tolerance * max(1, scale)) {
                    out.append("splat \(i) covariance[\(k)] = \(got[k]), expected \(want[k] ?? .nan)")
                }
            }
            if let sh = s["sh"] as? [[Any]] {
                if sh.count != scene.shCoefficientsPerChannel {
                    out.append("splat \(i) has \(scene.shCoefficientsPerChannel) SH coefficients, expected \(sh.count)")
                    continue
                }
                for (k, triple) in sh.enumerated() {
                    let got = scene.shCoefficient(i, k)
                    for c in 0..<3 {
                        let w = (triple[c] as! NSNumber).doubleValue
                        if !close(Double(got[c]), w, tolerance: tolerance) { out.append("splat \(i) sh[\(k)][\(c)] = \(got[c]), expected \(w)") }
                    }
                }
            }
        }
        return out
    }

    /// Upper triangle (xx, xy, xz, yy, yz, zz) of R·diag(σ²)·Rᵀ for splat i.
    static func covariance(_ scene: SplatScene, _ i: Int) -> [Double] {
        let q = SIMD4(Double(scene.rotW[i]), Double(scene.rotX[i]), Double(scene.rotY[i]), Double(scene.rotZ[i]))
        let r = Matrix3(quaternion: q / (q * q).sum().squareRoot())
        let v = SIMD3(exp(2 * Double(scene.logScaleX[i])), exp(2 * Double(scene.logScaleY[i])), exp(2 * Double(scene.logScaleZ[i])))
        let c = Matrix3(rows: r.rows.0 * v, r.rows.1 * v, r.rows.2 * v) * r.transposed
        return [c[0, 0], c[0, 1], c[0, 2], c[1, 1], c[1, 2], c[2, 2]]
    }

    /// The entry's node instances as (node, mesh, 16 matrix numbers).
    static func instances(_ entry: [String: Any]) -> [(node: Int, mesh: Int, matrix: [Double])]? {
        guard let list = entry["instances"] as? [[String: Any]] else { return nil }
        return list.map { ($0["node"] as! Int, $0["mesh"] as! Int, ($0["matrix"] as! [NSNumber]).map(\.doubleValue)) }
    }
}
