import Foundation
import SplatCore
import Testing
import TestSupport

/// Runs `vectors/splat_ref.py` (the independent Python decoder) on `path` for a sample of
/// splats: all of them up to 150, else the first, middle and last 50. Returns the indices and
/// the decoded splats in the same order.
enum SOGPythonReference {
    static let available: Bool = {
        run(["-c", "import zstandard, PIL.features; assert PIL.features.check('webp')"]) != nil
    }()

    static let script = """
    import builtins, json, sys
    sys.path.insert(0, sys.argv[1])
    import splat_ref
    def sample(n):
        if n <= 150:
            return list(builtins.range(n))
        mid = n // 2 - 25
        return list(builtins.range(50)) + list(builtins.range(mid, mid + 50)) + list(builtins.range(n - 50, n))
    # Only the per-splat loop calls range() with a bound above 150: make it visit the sample.
    def patched(*args):
        if len(args) == 1 and args[0] > 150:
            return sample(args[0])
        return builtins.range(*args)
    splat_ref.range = patched
    r = splat_ref.decode_sog(sys.argv[2])
    r["indices"] = sample(r["num_points"])
    print(json.dumps(r))
    """

    static func run(_ arguments: [String]) -> Data? {
        guard let run = try? ChildProcess.run("/usr/bin/env", ["python3"] + arguments), run.succeeded else { return nil }
        return Data(run.stdout)
    }

    static func decode(_ path: String) throws -> (indices: [Int], result: [String: Any]) {
        let data = try #require(run(["-c", script, Fixtures.vectors.path, path]), "splat_ref.py failed on \(path)")
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (result["indices"] as! [Int], result)
    }

    /// Differences between scene splats and reference splats (formats.md 9 JSON shape) at
    /// `indices`, rotations compared up to sign.
    static func compare(_ scene: SplatScene, indices: [Int], splats: [[String: Any]], tolerance: Double = 1e-5) -> [String] {
        var out: [String] = []
        func close(_ a: Float, _ b: Any?) -> Bool {
            guard let w = (b as? NSNumber)?.doubleValue else { return false }
            return abs(Double(a) - w) <= tolerance
        }
        for (i, s) in zip(indices, splats) {
            let p = s["position"] as! [Any], l = s["scale_log"] as! [Any], d = s["f_dc"] as! [Any], q = s["rotation_wxyz"] as! [Any]
            for a in 0..<3 where !close(scene.position(i)[a], p[a]) { out.append("splat \(i) position[\(a)] \(scene.position(i)[a]) vs \(p[a])") }
            for a in 0..<3 where !close(scene.logScale(i)[a], l[a]) { out.append("splat \(i) logScale[\(a)] \(scene.logScale(i)[a]) vs \(l[a])") }
            for c in 0..<3 where !close(scene.dc(i)[c], d[c]) { out.append("splat \(i) dc[\(c)] \(scene.dc(i)[c]) vs \(d[c])") }
            if !close(scene.alpha[i], s["alpha"]) { out.append("splat \(i) alpha \(scene.alpha[i]) vs \(s["alpha"]!)") }
            let r = scene.rotation(i)
            let same = (0..<4).allSatisfy { close(r[$0], q[$0]) }
            let negated = (0..<4).allSatisfy { close(-r[$0], q[$0]) }
            if !same && !negated { out.append("splat \(i) rotation \(r) vs \(q)") }
            let sh = s["sh"] as? [[Any]] ?? []
            if sh.count != scene.shCoefficientsPerChannel {
                out.append("splat \(i): \(scene.shCoefficientsPerChannel) SH coefficients vs \(sh.count)")
            } else {
                for (k, triple) in sh.enumerated() {
                    for c in 0..<3 where !close(scene.shCoefficient(i, k)[c], triple[c]) {
                        out.append("splat \(i) sh[\(k)][\(c)] \(scene.shCoefficient(i, k)[c]) vs \(triple[c])")
                    }
                }
            }
            if out.count > 20 { break }
        }
        return out
    }
}
