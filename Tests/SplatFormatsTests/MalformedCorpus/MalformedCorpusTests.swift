import Foundation
import SplatCore
import Testing
import TestSupport

@Suite("Malformed corpus")
struct MalformedCorpusTests {
    @Test("every vector and small corpus file is in the seed list")
    func seedList() throws {
        let names = seedNames()
        // Every kind of seed must be there, and every vector (all are small).
        var kinds: [String: Int] = [:]
        for name in names {
            let bytes = try seedBytes(name)
            let kind = SeedKind(bytes: bytes, name: name).map { "\($0)" } ?? "none"
            kinds[kind, default: 0] += 1
        }
        let vectors = try FileManager.default.contentsOfDirectory(atPath: Fixtures.vectors.path)
            .filter { ["spz", "ply", "splat", "sog"].contains(($0 as NSString).pathExtension) }
        #expect(vectors.count >= 30 && vectors.allSatisfy { names.contains("spec/vectors/\($0)") })
        #expect(names.count >= 60, "\(names.count) seeds")
        #expect(Set(kinds.keys) == ["spzV4", "spzLegacy", "spzRaw", "ply", "compressedPLY", "sogZip", "splat"], "\(kinds)")
        #expect(!names.contains { $0.hasSuffix("luma-seal.splat") }, "files over 2 MiB are skipped")
    }

    @Test("each mutation ends in the documented error kind or a valid scene", arguments: seedNames())
    func mutations(of seed: String) throws {
        let bytes = try seedBytes(seed)
        guard let kind = SeedKind(bytes: bytes, name: seed) else {
            Issue.record("unknown seed kind: \(seed)")
            return
        }
        let name = seed.hasSuffix("meta.json") ? "bundle.sog" : (seed as NSString).lastPathComponent
        // A seed that is itself a bad vector may report its own damage first, or have it cut
        // away: only the general rules apply to its mutations. A large scene gets header
        // mutations only.
        let baseline = OutcomeCheck.decode(bytes, name: name)
        var seedFails = false
        var full = bytes.count <= fullMutationBytes
        switch baseline {
        case .failure: seedFails = true
        case .success(let decoded): full = full && decoded.header.count <= 20_000
        }
        var mutations = MalformedInputs.mutations(of: bytes, kind: kind, seed: seed, full: full)
        if seedFails {
            for i in mutations.indices { mutations[i].expect = .anyOutcome }
        }
        #expect(mutations.count >= 30, "\(mutations.count) mutations")
        var problems: [String] = []
        var failures = 0
        for mutation in mutations {
            let result = OutcomeCheck.decode(mutation.bytes, name: name)
            if case .failure = result { failures += 1 }
            if let problem = OutcomeCheck.problem(result, expect: mutation.expect) {
                problems.append("\(mutation.label): \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(seed): \(problems.count) of \(mutations.count) mutations:\n\(problems.prefix(12).joined(separator: "\n"))")
        // Most damage is detected (a .splat has no structure to damage, only sizes).
        #expect(kind == .splat || failures * 2 >= mutations.count, "\(seed): only \(failures) of \(mutations.count) mutations failed")
    }
}
