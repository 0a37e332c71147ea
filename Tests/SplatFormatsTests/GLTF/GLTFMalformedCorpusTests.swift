import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

// The malformed corpus for glTF, GLB and .ksplat, in the manner of MalformedCorpusTests: every
// small vector and corpus file cut at structural and regular points, with deterministic byte
// flips, and (.ksplat) every header field set to extremes. Each result must be a documented
// SplatError or a valid scene whose values keep the model's promises, and `readHeader` must
// agree with `decode` whenever both succeed. All under a 64 MiB ceiling.

// The ceiling and the documented kinds are the malformed corpus's own (MalformedCorpus/Mutation.swift).

/// Seeds: the vectors and corpus files of these formats up to 64 KiB (the flywave tile is cut to
/// its first 64 KiB, which keeps its GLB header and JSON).
private func seeds() throws -> [(name: String, bytes: [UInt8])] {
    var out: [(String, [UInt8])] = []
    for folder in [GLTFExpectations.folder, Fixtures.corpus.appendingPathComponent("gltf"), Fixtures.corpus.appendingPathComponent("ksplat")] {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        where [".glb", ".gltf", ".ksplat"].contains(where: name.hasSuffix) && !name.hasPrefix("bad-") {
            let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            out.append((name, Array(bytes.prefix(64 << 10))))
        }
    }
    return out
}

/// Deterministic mutations of one file.
private func mutations(_ bytes: [UInt8], name: String) -> [(String, [UInt8])] {
    var out: [(String, [UInt8])] = []
    let n = bytes.count
    var cuts = Set((0..<32).map { $0 * n / 32 } + [1, 4, 8, 11, 12, 16, 19, 20, 4095, 4096, 5120, n - 1])
    if bytes.starts(with: Array("glTF".utf8)), n >= 20 {
        let json = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16
        cuts.formUnion([20 + json - 1, 20 + json, 20 + json + 7, 20 + json + 8, 20 + json + 9])
    }
    for cut in cuts.sorted() where cut >= 0 && cut < n { out.append(("cut \(cut)", Array(bytes[0..<cut]))) }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n)
    for k in 0..<192 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        var copy = bytes
        let at = Int(state >> 33) % max(1, n)
        copy[at] ^= UInt8(truncatingIfNeeded: state >> 17) | 1
        out.append(("flip \(k) at \(at)", copy))
    }
    if name.hasSuffix(".ksplat"), n >= 4096 + 1024 {
        let fields = [4, 8, 12, 16, 20, 36, 40] + [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40].map { 4096 + $0 }
        for offset in fields {
            for value: UInt32 in [0, 1, 3, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x7FC0_0000] {
                var copy = bytes
                withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { copy[offset + i] = b } }
                out.append(("field \(offset) = \(value)", copy))
            }
        }
    }
    return out
}

/// The model's promises for a decoded scene (formats.md 0.1, 8.4).
private func violations(_ d: DecodedScene) -> String? {
    let s = d.scene
    guard s.count <= d.header.count, (0...4).contains(s.shDegree), s.decodedBytes <= mutationLimits.maxDecodedBytes else {
        return "shape: \(s.count) of \(d.header.count) splats at degree \(s.shDegree)"
    }
    for i in 0..<s.count {
        let q = s.rotation(i)
        guard s.position(i).x.isFinite, s.position(i).y.isFinite, s.position(i).z.isFinite, s.alpha[i] >= 0, s.alpha[i] <= 1,
              abs((q * q).sum() - 1) < 1e-3, !s.logScale(i).x.isNaN, s.logScale(i).max() < .infinity else {
            return "splat \(i) breaks the model"
        }
    }
    return s.sh.allSatisfy(\.isFinite) ? nil : "non-finite SH"
}

@Suite struct GLTFMalformedCorpusTests {
    @Test func mutationsEndInDocumentedErrorsOrValidScenes() throws {
        var outcomes: [String: Int] = [:]
        var problems: [String] = []
        for seed in try seeds() {
            for (label, bytes) in mutations(seed.bytes, name: seed.name) {
                let input = bytes.withUnsafeBytes { InputBytes(copying: $0, name: seed.name) }
                var header: SceneHeader?
                do throws(SplatError) { header = try SplatFile.readHeader(input, limits: mutationLimits) } catch {
                    if !documentedKinds.contains(error.kind) || error.message.isEmpty { problems.append("\(seed.name) \(label): readHeader \(error)") }
                }
                do throws(SplatError) {
                    let decoded = try SplatFile.decode(input, limits: mutationLimits)
                    outcomes["ok", default: 0] += 1
                    if let v = violations(decoded) { problems.append("\(seed.name) \(label): \(v)") }
                    if let header, header.count != decoded.header.count || header.shDegree != decoded.header.shDegree {
                        problems.append("\(seed.name) \(label): readHeader and decode disagree")
                    } else if header == nil {
                        problems.append("\(seed.name) \(label): decode succeeded where readHeader failed")
                    }
                } catch {
                    outcomes[error.kind.rawValue, default: 0] += 1
                    if !documentedKinds.contains(error.kind) || error.message.isEmpty { problems.append("\(seed.name) \(label): \(error)") }
                }
            }
        }
        print("glTF/.ksplat mutations: \(outcomes.sorted { $0.key < $1.key })")
        #expect(problems.isEmpty, "\(problems.prefix(20).joined(separator: "\n"))")
        // The corpus reaches the decoders' checks, not only the first byte.
        #expect((outcomes["ok"] ?? 0) > 100 && (outcomes["bad_meta"] ?? 0) > 100 && (outcomes["truncated"] ?? 0) > 50)
    }

    /// The fixed inputs that fuzzing found, with the kind each must give (tools/fuzz/README.md).
    static let regressions: [(file: String, kind: SplatErrorKind)] = []

    @Test func fuzzRegressions() throws {
        let folder = Fixtures.packageRoot.appendingPathComponent("Tests/SplatFormatsTests/Regressions")
        for (file, kind) in Self.regressions {
            let path = folder.appendingPathComponent(file).path
            do throws(SplatError) {
                _ = try SplatFile.decode(path: path, limits: mutationLimits)
                Issue.record("\(file) decoded")
            } catch {
                #expect(error.kind == kind, "\(file): \(error)")
            }
        }
    }
}
