import SplatCore
import TestSupport

/// Structure-aware damage to SPZ seeds.
extension MalformedInputs {
    // SPZ v4 (formats.md 2.3, 8.4).
    static func spzV4(_ b: [UInt8]) -> [Mutation] {
        var out: [Mutation] = []
        // A cut file may also fail the count-to-size ratio (N ≤ fileSize·1024/9) first.
        let cutKinds: Set<SplatErrorKind> = [.truncated, .badTOC, .badMagic, .implausibleCount]
        let streams = Int(b[15]), toc = MalformedBytes.u32(b, 16)
        var boundaries = [1, 4, 16, 31, 32, toc, b.count - 1]
        var streamStart = toc + 16 * streams
        for i in 0..<streams {
            boundaries += [toc + 16 * i, toc + 16 * i + 8, streamStart, streamStart + 1]
            streamStart += Int(MalformedBytes.u64(b, toc + 16 * i))
        }
        for cut in Set(boundaries) where cut > 0 && cut < b.count {
            out.append(Mutation(label: "cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure(cutKinds)))
        }
        let fields: [(String, Int, [UInt64], Set<SplatErrorKind>)] = [
            ("version", 4, [0, 1, 3, 5, 0xFFFF_FFFF], [.unsupportedVersion]),
            ("count", 8, [0], [.empty]),
            ("count", 8, [(1 << 31) - 1, 1 << 31, 0xFFFF_FFFF], [.implausibleCount]),
            ("count", 8, [1, 2], [.badTOC]),
            ("tocByteOffset", 16, [0, 31, (1 << 31) - 1, 0xFFFF_FFFF], [.badTOC]),
        ]
        for (name, at, values, kinds) in fields {
            for v in values where UInt64(MalformedBytes.u32(b, at)) != v {
                out.append(Mutation(label: "\(name) = \(v)", bytes: MalformedBytes.setting(b, at, UInt32(v)), expect: .failure(kinds)))
            }
        }
        for (name, at, values, kinds) in [("shDegree", 12, [5, 255], [SplatErrorKind.badHeader]),
                                          ("fractionalBits", 13, [32, 255], [.badHeader]),
                                          ("numStreams", 15, [0, 1, 4, 7, 255], [.badTOC])] {
            for v in values where Int(b[at]) != v {
                out.append(Mutation(label: "\(name) = \(v)", bytes: MalformedBytes.setting(b, at, UInt8(v)), expect: .failure(Set(kinds))))
            }
        }
        for i in 0..<streams {
            for (field, offset) in [("compressedSize", 0), ("uncompressedSize", 8)] {
                for v in MalformedBytes.extremes where MalformedBytes.u64(b, toc + 16 * i + offset) != v {
                    out.append(Mutation(label: "TOC[\(i)].\(field) = \(v)", bytes: MalformedBytes.setting(b, toc + 16 * i + offset, v),
                                        expect: .failure([.badTOC, .truncated, .corrupt])))
                }
            }
        }
        out.append(Mutation(label: "trailing byte", bytes: b + [0], expect: .failure([.badTOC])))
        return out
    }

    // Legacy SPZ (formats.md 2.2, 8.4): damage to the gzip layer and, re-gzipped, to the payload.
    static func spzLegacy(_ b: [UInt8], full: Bool, rng: inout SplitMix64) -> [Mutation] {
        var out: [Mutation] = []
        for cut in Set([1, 2, 9, 10, 11, b.count - 8, b.count - 5, b.count - 4, b.count - 1]) where cut > 0 && cut < b.count {
            out.append(Mutation(label: "gzip cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure([.truncated, .corrupt, .badMagic])))
        }
        guard let payload = TestGzip.gunzip(b, maxBytes: mutationLimits.maxDecodedBytes), payload.count >= 16 else { return out }
        let isize = MalformedBytes.u32(b, b.count - 4)
        for v in [0, 1, isize + 1, Int(Int32.max), Int(UInt32.max)] where v != isize {
            out.append(Mutation(label: "ISIZE forged to \(v)", bytes: MalformedBytes.setting(b, b.count - 4, UInt32(truncatingIfNeeded: v)),
                                expect: .failure([.corrupt])))
        }
        out.append(Mutation(label: "CRC-32 forged", bytes: MalformedBytes.flipping(b, b.count - 8, bit: 3), expect: .failure([.corrupt])))

        let version = MalformedBytes.u32(payload, 4), n = MalformedBytes.u32(payload, 8), degree = Int(payload[12])
        let dim = (degree + 1) * (degree + 1) - 1
        let blocks = [n * (version == 1 ? 6 : 9), n, 3 * n, 3 * n, n * (version < 3 ? 3 : 4), 3 * n * dim]
        let attributesEnd = 16 + blocks.reduce(0, +)
        var boundaries = [0, 4, 8, 15, 16]
        var at = 16
        for size in blocks { boundaries += [at, at + 1]; at += size }
        for cut in Set(boundaries) where cut < attributesEnd {
            let kinds: Set<SplatErrorKind> = cut < 4 ? [.truncated, .badMagic] : [.truncated]
            out.append(Mutation(label: "payload cut at \(cut)", bytes: TestGzip.gzip(Array(payload[0..<cut])), expect: .failure(kinds)))
        }
        let fields: [(String, Int, [UInt32], Set<SplatErrorKind>)] = [
            ("magic", 0, [0, 0x5053_474F], [.badMagic]),
            ("version", 4, [0, 5, 0xFFFF_FFFF], [.unsupportedVersion]),
            ("count", 8, [0], [.empty]),
            ("count", 8, [UInt32(Int32.max)], [.tooLarge]),
            ("count", 8, [1 << 31, 0xFFFF_FFFF], [.implausibleCount]),
            ("count", 8, [1, 2], [.truncated]),
        ]
        for (name, at, values, kinds) in fields {
            for v in values where UInt32(MalformedBytes.u32(payload, at)) != v {
                // Fewer splats than the blocks hold is not an error: the rest reads as trailing bytes.
                let expect: Mutation.Expectation = name == "count" && Int(v) < n ? .anyOutcome : .failure(kinds)
                out.append(Mutation(label: "payload \(name) = \(v)", bytes: TestGzip.gzip(MalformedBytes.setting(payload, at, v)), expect: expect))
            }
        }
        for (name, at, values) in [("shDegree", 12, [5, 255]), ("fractionalBits", 13, [32, 255])] {
            for v in values {
                out.append(Mutation(label: "payload \(name) = \(v)", bytes: TestGzip.gzip(MalformedBytes.setting(payload, at, UInt8(v))),
                                    expect: .failure([.badHeader])))
            }
        }
        for i in 0..<(full ? 16 : 0) {
            out.append(Mutation(label: "payload flip byte \(i)", bytes: TestGzip.gzip(MalformedBytes.flipping(payload, i, bit: i)), expect: .anyOutcome))
        }
        if full {
            for _ in 0..<8 {
                let at = rng.below(payload.count)
                out.append(Mutation(label: "payload flip byte \(at)", bytes: TestGzip.gzip(MalformedBytes.flipping(payload, at, bit: rng.below(8))),
                                    expect: .anyOutcome))
            }
        }
        // One splat more than the blocks hold: truncated, unless extension or trailing bytes
        // happen to supply the missing bytes.
        out.append(Mutation(label: "payload count = \(n + 1)", bytes: TestGzip.gzip(MalformedBytes.setting(payload, 8, UInt32(n + 1))),
                            expect: payload.count == attributesEnd ? .failure([.truncated]) : .anyOutcome))
        out.append(Mutation(label: "header-only payload", bytes: TestGzip.gzip(Array(payload[0..<16])), expect: .failure([.truncated])))
        return out
    }
}
