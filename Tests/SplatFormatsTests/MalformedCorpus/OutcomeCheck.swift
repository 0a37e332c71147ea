import SplatCore
import SplatFormats

/// Decodes through the library's front door and says what is wrong with the outcome, if anything.
enum OutcomeCheck {
    static func decode(_ bytes: [UInt8], name: String, limits: DecodeLimits = mutationLimits) -> Result<DecodedScene, SplatError> {
        let input = bytes.withUnsafeBytes { InputBytes(copying: $0, name: name) }
        return Result { () throws(SplatError) in try SplatFile.decode(input, limits: limits) }
    }

    /// nil when the outcome meets `expect` and the general rules; otherwise what is wrong.
    static func problem(_ result: Result<DecodedScene, SplatError>, expect: Mutation.Expectation) -> String? {
        switch result {
        case .failure(let error):
            if !documentedKinds.contains(error.kind) { return "undocumented kind: \(error)" }
            if error.message.isEmpty { return "error without a message: \(error)" }
            switch expect {
            case .anyOutcome: return nil
            case .failure(let kinds): return kinds.contains(error.kind) ? nil : "expected \(kinds.map(\.rawValue).sorted()), got \(error)"
            case .scene(let count): return "expected a scene of \(count) splats, got \(error)"
            }
        case .success(let decoded):
            if let bad = invalidValue(decoded) { return bad }
            switch expect {
            case .anyOutcome: return nil
            case .failure(let kinds): return "expected \(kinds.map(\.rawValue).sorted()), got a scene of \(decoded.scene.count) splats"
            case .scene(let count): return decoded.scene.count == count ? nil : "expected \(count) splats, got \(decoded.scene.count)"
            }
        }
    }

    /// A valid scene: count within the header's, finite values or the allowed infinities, unit
    /// quaternions, alphas in [0, 1], size within the ceiling.
    static func invalidValue(_ decoded: DecodedScene) -> String? {
        let s = decoded.scene
        guard s.count >= 0, s.count <= decoded.header.count else { return "scene of \(s.count) splats, header says \(decoded.header.count)" }
        guard s.decodedBytes <= mutationLimits.maxDecodedBytes else { return "scene of \(s.decodedBytes) bytes over the ceiling" }
        for column in [s.x, s.y, s.z, s.dcR, s.dcG, s.dcB, s.rotW, s.rotX, s.rotY, s.rotZ] {
            if let i = column.firstIndex(where: { !$0.isFinite }) { return "splat \(i): non-finite value \(column[i])" }
        }
        for column in [s.logScaleX, s.logScaleY, s.logScaleZ] {
            if let i = column.firstIndex(where: { $0.isNaN || $0 == .infinity }) { return "splat \(i): log-scale \(column[i])" }
        }
        if let i = s.alpha.firstIndex(where: { !($0 >= 0 && $0 <= 1) }) { return "splat \(i): alpha \(s.alpha[i])" }
        for i in 0..<s.count {
            let q = s.rotation(i)
            let norm = (q * q).sum().squareRoot()
            if abs(norm - 1) > 1e-3 { return "splat \(i): quaternion \(q) of length \(norm)" }
        }
        let per = s.shFloatsPerSplat
        if let j = s.sh[0..<s.count * per].firstIndex(where: { !$0.isFinite }) { return "splat \(j / max(1, per)): SH value \(s.sh[j])" }
        return nil
    }
}
