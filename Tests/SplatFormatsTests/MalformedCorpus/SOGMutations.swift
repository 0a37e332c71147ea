import Foundation
import SplatCore
import TestSupport

/// Structure-aware damage to bundled SOG seeds.
extension MalformedInputs {
    // Bundled SOG (formats.md 5.1, 8.4): cuts at zip records, lying directories, garbage images, counts.
    static func sogZip(_ b: [UInt8], full: Bool, rng: inout SplitMix64) -> [Mutation] {
        guard let zip = MalformedBytes.zipEntries(b) else { return [] }
        var out: [Mutation] = []
        let zipKinds: Set<SplatErrorKind> = [.truncated, .corrupt, .unsupported, .tooLarge, .badMeta, .badTexture]
        var cuts = [zip.centralStart, zip.end, b.count - 1, 4]
        for entry in zip.entries { cuts += [entry.local, entry.local + 30, entry.central] }
        for cut in Set(cuts) where cut > 0 && cut < b.count {
            out.append(Mutation(label: "cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure([.truncated, .corrupt, .badMagic])))
        }
        // End record lies. 0xFFFF and 0xFFFFFFFF are ZIP64 markers (unsupported).
        let counts: [(String, Int, [UInt64])] = [("entries on disk", 8, [0, 1, 0xFFFF]), ("entries", 10, [0, 1, 0xFFFF])]
        for (name, at, values) in counts {
            for v in values where UInt64(MalformedBytes.u16(b, zip.end + at)) != v {
                out.append(Mutation(label: "end record \(name) = \(v)", bytes: MalformedBytes.setting(b, zip.end + at, UInt16(v)), expect: .failure(zipKinds)))
            }
        }
        for (name, at) in [("directory size", 12), ("directory offset", 16)] {
            for v: UInt64 in [0, 1, (1 << 31) - 1, 0xFFFF_FFFF] where UInt64(MalformedBytes.u32(b, zip.end + at)) != v {
                out.append(Mutation(label: "end record \(name) = \(v)", bytes: MalformedBytes.setting(b, zip.end + at, UInt32(v)), expect: .failure(zipKinds)))
            }
        }
        // Central directory lies, entry by entry (every entry is needed by the scene).
        for entry in zip.entries {
            let e = entry.central
            for (field, at) in [("compressed size", 20), ("uncompressed size", 24), ("local header offset", 42)] {
                for v: UInt64 in [0, 1, (1 << 31) - 1, 0xFFFF_FFFF] where UInt64(MalformedBytes.u32(b, e + at)) != v {
                    out.append(Mutation(label: "\(entry.name): \(field) = \(v)", bytes: MalformedBytes.setting(b, e + at, UInt32(v)),
                                        expect: entry.data.isEmpty ? .anyOutcome : .failure(zipKinds)))
                }
            }
            out.append(Mutation(label: "\(entry.name): method 99", bytes: MalformedBytes.setting(b, e + 10, UInt16(99)), expect: .failure([.unsupported])))
            out.append(Mutation(label: "\(entry.name): encrypted", bytes: MalformedBytes.setting(b, e + 8, UInt16(1)), expect: .failure([.unsupported])))
            out.append(Mutation(label: "\(entry.name): CRC-32 lies", bytes: MalformedBytes.flipping(b, e + 16, bit: 0), expect: .failure([.corrupt])))
            out.append(Mutation(label: "\(entry.name): local header sizes lie",
                                bytes: MalformedBytes.setting(MalformedBytes.setting(b, entry.local + 18, UInt32.max), entry.local + 22, UInt32.max),
                                expect: .anyOutcome))
        }
        // Rebuilt archives (small bundles): each image replaced by garbage, a cut copy, a RIFF
        // header over garbage; meta.json replaced, alone, or with its count set to extremes.
        guard full else { return out }
        let entries = zip.entries.map { ($0.name, $0.data) }
        for (i, entry) in zip.entries.enumerated() where entry.name.hasSuffix(".webp") {
            let riff = Array("RIFF".utf8) + MalformedBytes.le(UInt32(60)) + Array("WEBPVP8L".utf8) + rng.bytes(52)
            for (label, replacement) in [("garbage", rng.bytes(64)), ("half", Array(entry.data.prefix(entry.data.count / 2))), ("RIFF garbage", riff)] {
                var copy = entries
                copy[i].1 = replacement
                out.append(Mutation(label: "\(entry.name) replaced by \(label)", bytes: TestZipWriter.stored(copy),
                                    expect: .failure([.corrupt, .unsupported, .badTexture])))
            }
        }
        if let m = entries.firstIndex(where: { $0.0 == "meta.json" }) {
            var copy = entries
            copy[m].1 = rng.bytes(64)
            out.append(Mutation(label: "meta.json replaced by garbage", bytes: TestZipWriter.stored(copy), expect: .failure([.badMeta])))
            out.append(Mutation(label: "meta.json only", bytes: TestZipWriter.stored([entries[m]]), expect: .failure([.truncated])))
            out += sogCounts(entries, meta: m)
        }
        return out
    }

    /// meta.json's splat count (v2 `count`, v1 `means.shape[0]`) set to extremes.
    static func sogCounts(_ entries: [(String, [UInt8])], meta m: Int) -> [Mutation] {
        guard var json = (try? JSONSerialization.jsonObject(with: Data(entries[m].1))) as? [String: Any] else { return [] }
        let v2 = json["version"] != nil
        var out: [Mutation] = []
        let values: [(String, Set<SplatErrorKind>?)] = [
            ("0", [.badMeta]), ("1", nil), ("2147483647", [.tooLarge, .badTexture]), ("4294967295", [.tooLarge, .implausibleCount, .badTexture]),
            ("9223372036854775808", [.badMeta, .tooLarge, .implausibleCount]), ("18446744073709551615", [.badMeta, .tooLarge, .implausibleCount]),
            ("-1", [.badMeta]), ("1.5", [.badMeta]), ("1e300", [.badMeta, .tooLarge, .implausibleCount]),
        ]
        for (text, kinds) in values {
            let marker = "__COUNT__"
            if v2 { json["count"] = marker } else if var means = json["means"] as? [String: Any], var shape = means["shape"] as? [Any], !shape.isEmpty {
                shape[0] = marker
                means["shape"] = shape
                json["means"] = means
            }
            guard let data = try? JSONSerialization.data(withJSONObject: json) else { continue }
            let text2 = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"\(marker)\"", with: text)
            var copy = entries
            copy[m].1 = Array(text2.utf8)
            out.append(Mutation(label: "meta count = \(text)", bytes: TestZipWriter.stored(copy),
                                expect: kinds.map { .failure($0) } ?? .anyOutcome))
        }
        return out
    }
}
