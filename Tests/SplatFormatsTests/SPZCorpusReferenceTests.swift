import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

extension SPZDecoderTests {
    /// Compares our decode with the reference library's (`spz_to_ply`, no conversion) value by
    /// value. Where this project deliberately differs from the reference:
    /// * alpha stays linear (byte/255); the reference writes its logit, ±infinity for bytes 255
    ///   and 0 — compared by taking our logit in the same Float arithmetic;
    /// * quaternions are normalized here and not in the reference (smallest-three and first-three
    ///   both rebuild a nearly unit quaternion), so rotations agree to ~1e-6, and up to sign
    ///   (re-encoded v2 files may come back as −q, the same rotation);
    /// * the reference leaves the smallest-three square root unclamped (NaN for sums of squares
    ///   above 1); we clamp. No corpus file triggers it; `clamp-quat-v3.spz` covers it.
    @Test("corpus SPZ files match the reference decodes", arguments: SPZTestFiles.corpusFiles())
    func corpusMatchesReference(_ relative: String) throws {
        let url = Fixtures.corpus.appendingPathComponent(relative)
        let referencePath = try #require(SPZTestFiles.referenceDecode(for: url), "no reference decode for \(relative)")
        let reference = try SPZTestFiles.ReferencePLY(path: referencePath)
        let scene = try SPZTestFiles.decode(path: url.path).scene
        #expect(scene.count == reference.count)
        #expect(scene.shCoefficientsPerChannel * 3 == reference.restCount)
        let dim = scene.shCoefficientsPerChannel
        var mismatches: [String] = []
        func check(_ what: String, _ i: Int, _ ours: Float, _ theirs: Float, tolerance: Float = 0) {
            if !(abs(ours - theirs) <= tolerance || ours == theirs) && mismatches.count < 20 {
                mismatches.append("splat \(i) \(what): \(ours) vs reference \(theirs)")
            }
        }
        // Scalar reads of the columns: SIMD helpers are slow in debug builds.
        let scales = [scene.logScaleX, scene.logScaleY, scene.logScaleZ], dcs = [scene.dcR, scene.dcG, scene.dcB]
        let rotations = [scene.rotW, scene.rotX, scene.rotY, scene.rotZ], sh = scene.sh
        let refX = reference.column("x"), refY = reference.column("y"), refZ = reference.column("z")
        let refScales = (0..<3).map { reference.column("scale_\($0)") }, refDC = (0..<3).map { reference.column("f_dc_\($0)") }
        let refRotations = (0..<4).map { reference.column("rot_\($0)") }, refOpacity = reference.column("opacity")
        // Reference PLYs store f_rest channel-major: all red coefficients, then green, then blue.
        let refRest = (0..<3 * dim).map { reference.column("f_rest_\($0)") }
        for i in 0..<min(scene.count, reference.count) {
            check("x", i, scene.x[i], refX(i))
            check("y", i, scene.y[i], refY(i))
            check("z", i, scene.z[i], refZ(i))
            for a in 0..<3 {
                check("scale_\(a)", i, scales[a][i], refScales[a](i))
                check("f_dc_\(a)", i, dcs[a][i], refDC[a](i))
            }
            let alpha = scene.alpha[i]
            let logit = alpha >= 1 ? Float.infinity : alpha <= 0 ? -Float.infinity : Foundation.log(alpha / (1 - alpha))
            check("opacity", i, logit, refOpacity(i), tolerance: 1e-5 * max(1, abs(logit)))
            var dot: Float = 0
            for c in 0..<4 { dot += rotations[c][i] * refRotations[c](i) }
            let sign: Float = dot < 0 ? -1 : 1
            for c in 0..<4 { check("rot_\(c)", i, rotations[c][i], sign * refRotations[c](i), tolerance: 2e-6) }
            for k in 0..<dim {
                for c in 0..<3 {
                    check("sh[\(k)][\(c)]", i, sh[(i * dim + k) * 3 + c], refRest[c * dim + k](i))
                }
            }
        }
        #expect(mismatches == [], "\(relative) vs \(referencePath)")
    }
}
