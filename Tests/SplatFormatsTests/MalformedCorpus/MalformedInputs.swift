import SplatCore

/// The damaged copies of one seed: the format's own mutations (SPZMutations, PLYMutations,
/// SOGMutations, `.splat` here) plus the bit flips, cuts and empty file every format gets.
enum MalformedInputs {
    /// `full` false (large files, large scenes) keeps the header mutations and drops the
    /// samples over the body, which would each decode the whole scene.
    static func mutations(of bytes: [UInt8], kind: SeedKind, seed: String, full: Bool) -> [Mutation] {
        var rng = SplitMix64(seed: seed.hashValueStable)
        var out: [Mutation]
        switch kind {
        case .spzV4: out = spzV4(bytes)
        case .spzLegacy: out = spzLegacy(bytes, full: full, rng: &rng)
        case .spzRaw: out = []
        case .ply, .compressedPLY: out = ply(bytes, compressed: kind == .compressedPLY, full: full)
        case .sogZip: out = sogZip(bytes, full: full, rng: &rng)
        case .splat: out = splat(bytes)
        }
        // Everywhere: one flipped bit in each of the first 64 bytes, and (small files) a sample
        // of flips and cuts over the whole file.
        // (A large SOG bundle is skipped: its first bytes are an image's local header, which the
        // central directory overrides, so each flip would decode the whole scene.)
        for i in 0..<min(full ? 64 : kind == .sogZip ? 0 : 16, bytes.count) {
            out.append(Mutation(label: "flip byte \(i)", bytes: MalformedBytes.flipping(bytes, i, bit: i), expect: .anyOutcome))
        }
        if full {
            for _ in 0..<16 {
                let at = rng.below(bytes.count)
                out.append(Mutation(label: "flip byte \(at)", bytes: MalformedBytes.flipping(bytes, at, bit: rng.below(8)), expect: .anyOutcome))
            }
            for k in 1..<8 {
                let cut = bytes.count * k / 8
                out.append(Mutation(label: "cut at \(cut) (sample)", bytes: Array(bytes[0..<cut]), expect: .anyOutcome))
            }
        }
        out.append(Mutation(label: "empty file", bytes: [], expect: .failure([.empty])))
        return out
    }

    // .splat (formats.md 6): cuts are bad_size unless they land on a record boundary.
    static func splat(_ b: [UInt8]) -> [Mutation] {
        var out: [Mutation] = []
        for k in Set([0, 1, b.count / 32 / 2, b.count / 32 - 1]) where k * 32 < b.count {
            for delta in [-1, 0, 1] {
                let cut = k * 32 + delta
                guard cut > 0, cut < b.count else { continue }
                out.append(Mutation(label: "cut at \(cut)", bytes: Array(b[0..<cut]),
                                    expect: delta == 0 ? .anyOutcome : .failure([.badSize])))
            }
        }
        out.append(Mutation(label: "one extra byte", bytes: b + [0], expect: .failure([.badSize])))
        return out
    }
}

extension SplitMix64 {
    /// The same "random" offsets on every run and machine.
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
}

private extension String {
    /// A hash that does not change between runs (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 { utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 } }
}
