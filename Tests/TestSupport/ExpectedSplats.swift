import Foundation
import SplatCore

/// Compares a decoded scene with an entry of `vectors/expected.json` (or any list of splats in
/// that JSON shape, e.g. `splat_ref.py` output): positions, log-scales, unit rotations, alphas,
/// DC and SH, with the spec's absolute tolerance. Returns one line per mismatch (empty = equal).
public enum ExpectedSplats {
    public static func mismatches(_ scene: SplatScene, expected entry: [String: Any], tolerance: Double = 1e-5) -> [String] {
        var out: [String] = []
        if let n = entry["num_points"] as? Int, n != scene.count { out.append("count \(scene.count), expected \(n)") }
        if let d = entry["sh_degree"] as? Int, d != scene.shDegree { out.append("shDegree \(scene.shDegree), expected \(d)") }
        if let m = entry["model"] as? String, m != scene.model.rawValue { out.append("model \(scene.model.rawValue), expected \(m)") }
        if let a = entry["antialiased"] as? Bool, a != (scene.model == .antialiased) { out.append("antialiased \(!a), expected \(a)") }
        guard let splats = entry["splats"] as? [[String: Any]] else { return out }
        for (i, s) in splats.enumerated() where i < scene.count {
            func check(_ name: String, _ got: [Float], _ key: String, tol: Double = tolerance) {
                guard let want = s[key] as? [Any] else { return }
                for (j, w) in want.enumerated() {
                    guard let wv = (w as? NSNumber)?.doubleValue else { continue }
                    let g = Double(got[j])
                    if !(abs(g - wv) <= tol || (g.isInfinite && g == wv)) {
                        out.append("splat \(i) \(name)[\(j)] = \(g), expected \(wv)")
                    }
                }
            }
            check("position", [scene.x[i], scene.y[i], scene.z[i]], "position")
            check("logScale", [scene.logScaleX[i], scene.logScaleY[i], scene.logScaleZ[i]], "scale_log")
            check("rotation", [scene.rotW[i], scene.rotX[i], scene.rotY[i], scene.rotZ[i]], "rotation_wxyz")
            check("dc", [scene.dcR[i], scene.dcG[i], scene.dcB[i]], "f_dc")
            if let a = (s["alpha"] as? NSNumber)?.doubleValue, abs(Double(scene.alpha[i]) - a) > tolerance {
                out.append("splat \(i) alpha = \(scene.alpha[i]), expected \(a)")
            }
            if let sh = s["sh"] as? [[Any]] {
                if sh.count != scene.shCoefficientsPerChannel {
                    out.append("splat \(i) has \(scene.shCoefficientsPerChannel) SH coefficients, expected \(sh.count)")
                } else {
                    for (k, triple) in sh.enumerated() {
                        let got = scene.shCoefficient(i, k)
                        for c in 0..<3 {
                            let w = (triple[c] as! NSNumber).doubleValue
                            if abs(Double(got[c]) - w) > tolerance { out.append("splat \(i) sh[\(k)][\(c)] = \(got[c]), expected \(w)") }
                        }
                    }
                }
            }
        }
        return out
    }
}
