import CDeflate
import CZstd
import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

// The PngSuite approach for splat files: every small spec vector and corpus file is damaged in
// deterministic, structure-aware ways (cuts at every structural boundary, header bit flips,
// counts and sizes set to extremes, forged gzip trailers, lying zip directories, garbage
// images, non-finite floats, header-only files). Each result must be a documented SplatError
// (formats.md 0.2) or a valid scene, and where formats.md 8.4 names the kind, that kind.
// Everything runs under a 64 MiB ceiling, so no mutation may allocate more than that.

/// The ceiling every mutation runs under.
private let mutationLimits = DecodeLimits(maxDecodedBytes: 64 << 20)

/// The kinds a decoder may report for bytes in memory (formats.md 0.2); `io`,
/// `invalid_argument` and `timeout` cannot come from a decode of bytes.
private let documentedKinds: Set<SplatErrorKind> = [
    .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount,
    .tooLarge, .empty, .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite,
]

// MARK: - Inputs

/// One damaged file and what formats.md says must come of it.
private struct Mutation {
    enum Expectation {
        /// A documented error or a valid scene.
        case anyOutcome
        /// One of these error kinds.
        case failure(Set<SplatErrorKind>)
        /// A valid scene of exactly this many splats.
        case scene(count: Int)
    }

    var label: String
    var bytes: [UInt8]
    var expect: Expectation
}

/// What a seed file is, from its bytes.
private enum SeedKind {
    case spzV4, spzLegacy, spzRaw, ply, compressedPLY, sogZip, splat

    init?(bytes: [UInt8], name: String) {
        if bytes.starts(with: [0x4E, 0x47, 0x53, 0x50]) { self = bytes.count >= 8 && bytes[4] == 4 ? .spzV4 : .spzRaw }
        else if bytes.starts(with: [0x1F, 0x8B]) { self = .spzLegacy }
        else if bytes.starts(with: Array("ply".utf8)) {
            self = String(decoding: bytes.prefix(4096), as: UTF8.self).contains("packed_position") ? .compressedPLY : .ply
        } else if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) { self = .sogZip }
        else if name.hasSuffix(".splat") { self = .splat }
        else { return nil }
    }
}

/// Files above this size are skipped; the corpus's large files add decode time, not coverage.
private let maxSeedBytes = 2 << 20
/// Files above this size get header mutations only.
private let fullMutationBytes = 128 << 10
/// Real files are cut down to this many splats, structure intact (same header, blocks, streams,
/// extensions), so a mutation that still decodes costs microseconds, not a whole scene.
private let seedSplats = 24

/// The vector and corpus files the suite damages, as paths relative to `../shared`. Reference
/// decodes (`*.decoded*.ply`, written by one tool in one layout) are left out after the first.
private func seedNames() -> [String] {
    var names: [String] = []
    let fm = FileManager.default
    for (root, label) in [(Fixtures.vectors, "spec/vectors"), (Fixtures.corpus, "corpus")] {
        guard let walker = fm.enumerator(atPath: root.path) else { continue }
        for case let relative as String in walker {
            let path = root.appendingPathComponent(relative).path
            guard ["spz", "ply", "splat", "sog"].contains((relative as NSString).pathExtension),
                  !relative.contains(".decoded") || relative.hasSuffix("adobe-SanitySplats.decoded.ply"),
                  let size = (try? fm.attributesOfItem(atPath: path))?[.size] as? Int, size <= maxSeedBytes else { continue }
            names.append("\(label)/\(relative)")
        }
    }
    // The unbundled SOG vector, zipped into a bundle.
    names.append("spec/vectors/tiny-sog-v1/meta.json")
    return names.sorted()
}

private func sharedPath(_ name: String) -> String { Fixtures.shared.appendingPathComponent(name).path }

/// The bytes of a seed, cut down to `seedSplats` splats; an unbundled SOG `meta.json` comes
/// back as a stored bundle of its folder. (The bomb vector is cut down too; its own test below
/// uses it whole.)
private func seedBytes(_ name: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: sharedPath(name))
    guard name.hasSuffix("meta.json") else {
        let bytes = [UInt8](try Data(contentsOf: url))
        return SeedShrinking.shrink(bytes, name: name) ?? bytes
    }
    let folder = url.deletingLastPathComponent()
    var entries: [(String, [UInt8])] = [("meta.json", [UInt8](try Data(contentsOf: url)))]
    for image in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where image.hasSuffix(".webp") {
        entries.append((image, [UInt8](try Data(contentsOf: folder.appendingPathComponent(image)))))
    }
    return MalformedBytes.storedZip(entries)
}

/// Cuts a valid file down to its first splats, keeping its exact layout.
private enum SeedShrinking {
    static func shrink(_ b: [UInt8], name: String) -> [UInt8]? {
        switch SeedKind(bytes: b, name: name) {
        case .spzV4: return spzV4(b)
        case .spzLegacy: return spzLegacy(b)
        case .ply, .compressedPLY: return ply(b)
        case .splat: return b.count > 32 * seedSplats && b.count % 32 == 0 ? Array(b[0..<32 * seedSplats]) : nil
        default: return nil
        }
    }

    static func legacyBlocks(version: Int, count n: Int, degree: Int) -> [Int] {
        let dim = (degree + 1) * (degree + 1) - 1
        return [n * (version == 1 ? 6 : 9), n, 3 * n, 3 * n, n * (version < 3 ? 3 : 4), 3 * n * dim]
    }

    static func spzLegacy(_ b: [UInt8]) -> [UInt8]? {
        guard let payload = MalformedBytes.gunzip(b), payload.count >= 16 else { return nil }
        let version = MalformedBytes.u32(payload, 4), n = MalformedBytes.u32(payload, 8), degree = Int(payload[12])
        guard n > seedSplats, (1...3).contains(version), degree <= 4, n < 1 << 24 else { return nil }
        var out = MalformedBytes.setting(Array(payload[0..<16]), 8, UInt32(seedSplats))
        var at = 16
        for size in legacyBlocks(version: version, count: n, degree: degree) {
            out += payload[at..<at + size / n * seedSplats]
            at += size
        }
        out += payload[at...]  // extension records and trailers stay
        return MalformedBytes.gzip(out)
    }

    static func spzV4(_ b: [UInt8]) -> [UInt8]? {
        let n = MalformedBytes.u32(b, 8), streams = Int(b[15]), toc = MalformedBytes.u32(b, 16)
        guard n > seedSplats, toc + 16 * streams <= b.count else { return nil }
        var at = toc + 16 * streams
        var compressed: [[UInt8]] = []
        for i in 0..<streams {
            let c = Int(MalformedBytes.u64(b, toc + 16 * i)), u = Int(MalformedBytes.u64(b, toc + 16 * i + 8))
            guard u % n == 0, at + c <= b.count else { return nil }
            var plain = [UInt8](repeating: 0, count: u)
            let got = b[at..<at + c].withUnsafeBytes { src in plain.withUnsafeMutableBytes { ZSTD_decompress($0.baseAddress, $0.count, src.baseAddress, src.count) } }
            guard got == u else { return nil }
            let kept = Array(plain[0..<u / n * seedSplats])
            var out = [UInt8](repeating: 0, count: ZSTD_compressBound(kept.count))
            let size = kept.withUnsafeBytes { src in out.withUnsafeMutableBytes { ZSTD_compress($0.baseAddress, $0.count, src.baseAddress, src.count, 3) } }
            compressed.append(Array(out[0..<size]))
            at += c
        }
        var out = MalformedBytes.setting(Array(b[0..<toc]), 8, UInt32(seedSplats))
        for (i, stream) in compressed.enumerated() {
            out += MalformedBytes.le(UInt64(stream.count)) + MalformedBytes.le(MalformedBytes.u64(b, toc + 16 * i + 8) / UInt64(n) * UInt64(seedSplats))
        }
        return out + compressed.joined()
    }

    /// Binary PLY with fixed-size rows: each element keeps its first rows (compressed PLY keeps
    /// one 256-splat chunk so C = ceil(N/256) still holds).
    static func ply(_ b: [UInt8]) -> [UInt8]? {
        guard let layout = PLYLayout(b), layout.binary, layout.elements.allSatisfy({ $0.rowSize != nil }),
              layout.elements.contains(where: { $0.name == "vertex" && $0.count > seedSplats }) else { return nil }
        let compressed = layout.elements.contains { $0.name == "chunk" }
        var header = b[0..<layout.headerEnd].map { $0 }
        var body: [UInt8] = []
        for (element, start) in zip(layout.elements, layout.elementStarts).reversed() {
            let keep = compressed ? (element.name == "chunk" ? 1 : min(element.count, 256)) : min(element.count, seedSplats)
            header.replaceSubrange(element.line, with: Array("element \(element.name) \(keep)".utf8))
            guard let start, let row = element.rowSize, start + keep * row <= b.count else { return nil }
            body = Array(b[start..<start + keep * row]) + body
        }
        return header + body
    }
}

// MARK: - Byte tools

/// Little-endian access, containers and a deterministic generator for building damaged files.
private enum MalformedBytes {
    static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32 }

    static func setting<T: FixedWidthInteger>(_ b: [UInt8], _ at: Int, _ value: T) -> [UInt8] {
        var out = b
        withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { out[at + i] = byte } }
        return out
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    static func flipping(_ b: [UInt8], _ at: Int, bit: Int) -> [UInt8] {
        var out = b
        out[at] ^= UInt8(1 << (bit & 7))
        return out
    }

    static func find(_ pattern: [UInt8], in b: [UInt8], from start: Int = 0) -> Int? {
        guard pattern.count <= b.count else { return nil }
        var i = start
        while i <= b.count - pattern.count {
            if b[i] == pattern[0], b[i..<i + pattern.count].elementsEqual(pattern) { return i }
            i += 1
        }
        return nil
    }

    /// gzip (libdeflate, level 6).
    static func gzip(_ data: [UInt8]) -> [UInt8] {
        let compressor = libdeflate_alloc_compressor(6)!
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_gzip_compress_bound(compressor, data.count))
        let n = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { libdeflate_gzip_compress(compressor, src.baseAddress, src.count, $0.baseAddress, $0.count) }
        }
        return Array(out[0..<n])
    }

    /// Inflates a trusted seed (its ISIZE gives the size).
    static func gunzip(_ data: [UInt8]) -> [UInt8]? {
        // A damaged seed's ISIZE is any number: trust it only within the test ceiling.
        guard data.count >= 18, u32(data, data.count - 4) <= mutationLimits.maxDecodedBytes else { return nil }
        var out = [UInt8](repeating: 0, count: u32(data, data.count - 4))
        let decompressor = libdeflate_alloc_decompressor()!
        defer { libdeflate_free_decompressor(decompressor) }
        let status = data.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { libdeflate_gzip_decompress(decompressor, src.baseAddress, src.count, $0.baseAddress, $0.count, nil) }
        }
        return status == LIBDEFLATE_SUCCESS ? out : nil
    }

    static func crc32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBytes { UInt32(libdeflate_crc32(0, $0.baseAddress, $0.count)) }
    }

    /// A zip of stored entries with correct CRCs: central directory, end record, no descriptors.
    static func storedZip(_ entries: [(String, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [], central: [UInt8] = []
        for (name, data) in entries {
            let nameBytes = Array(name.utf8), crc = crc32(data), offset = UInt32(out.count)
            let sizes = le(crc) + le(UInt32(data.count)) + le(UInt32(data.count)) + le(UInt16(nameBytes.count))
            out += le(UInt32(0x0403_4B50)) + le(UInt16(20)) + le(UInt16(0)) + le(UInt16(0)) + le(UInt32(0))
            out += sizes + le(UInt16(0)) + nameBytes + data
            central += le(UInt32(0x0201_4B50)) + le(UInt16(20)) + le(UInt16(20)) + le(UInt16(0)) + le(UInt16(0)) + le(UInt32(0))
            central += sizes + le(UInt16(0)) + le(UInt16(0)) + le(UInt16(0)) + le(UInt16(0)) + le(UInt32(0)) + le(offset) + nameBytes
        }
        let centralOffset = UInt32(out.count)
        out += central
        out += le(UInt32(0x0605_4B50)) + le(UInt16(0)) + le(UInt16(0)) + le(UInt16(entries.count)) + le(UInt16(entries.count))
        out += le(UInt32(central.count)) + le(centralOffset) + le(UInt16(0))
        return out
    }

    /// The entries of a zip, read through its central directory (trusted seeds only).
    static func zipEntries(_ b: [UInt8]) -> (entries: [(name: String, data: [UInt8], central: Int, local: Int)], centralStart: Int, end: Int)? {
        guard b.count >= 22 else { return nil }
        var end = b.count - 22
        while end >= 0, u32(b, end) != 0x0605_4B50 { end -= 1 }
        guard end >= 0 else { return nil }
        let count = u16(b, end + 10), centralStart = u32(b, end + 16)
        var at = centralStart
        var entries: [(name: String, data: [UInt8], central: Int, local: Int)] = []
        for _ in 0..<count {
            guard at + 46 <= b.count, u32(b, at) == 0x0201_4B50 else { return nil }
            let method = u16(b, at + 10), csize = u32(b, at + 20), nameLength = u16(b, at + 28)
            let extra = u16(b, at + 30), comment = u16(b, at + 32), local = u32(b, at + 42)
            let name = String(decoding: b[at + 46..<at + 46 + nameLength], as: UTF8.self)
            let dataStart = local + 30 + u16(b, local + 26) + u16(b, local + 28)
            var data = Array(b[dataStart..<dataStart + csize])
            if method == 8 {
                var inflated = [UInt8](repeating: 0, count: u32(b, at + 24))
                let d = libdeflate_alloc_decompressor()!
                _ = data.withUnsafeBytes { src in
                    inflated.withUnsafeMutableBytes { libdeflate_deflate_decompress(d, src.baseAddress, src.count, $0.baseAddress, $0.count, nil) }
                }
                libdeflate_free_decompressor(d)
                data = inflated
            }
            entries.append((name, data, at, local))
            at += 46 + nameLength + extra + comment
        }
        return (entries, centralStart, end)
    }

    /// SplitMix64: the same "random" offsets on every run and machine.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
        mutating func bytes(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8(truncatingIfNeeded: next()) } }
    }

    /// The extreme integers counts and sizes are set to.
    static let extremes: [UInt64] = [0, 1, 2, (1 << 31) - 1, (1 << 32) - 1, 1 << 63, UInt64.max]
}

// MARK: - PLY header layout

/// Just enough of a PLY header to find elements, rows and float properties in a seed.
private struct PLYLayout {
    struct Element {
        var name: String
        var count: Int
        /// Byte offsets of each property inside a binary row; nil when a row has a list.
        var offsets: [String: (offset: Int, type: String)]
        var rowSize: Int?
        /// Byte range of the `element <name> <count>` line in the header.
        var line: Range<Int>
    }

    var format: String
    var headerEnd: Int
    var lineEnds: [Int]
    var elements: [Element]

    static let sizes = ["char": 1, "int8": 1, "uchar": 1, "uint8": 1, "short": 2, "int16": 2, "ushort": 2, "uint16": 2,
                        "int": 4, "int32": 4, "uint": 4, "uint32": 4, "float": 4, "float32": 4, "double": 8, "float64": 8]

    init?(_ bytes: [UInt8]) {
        guard let marker = MalformedBytes.find(Array("end_header".utf8), in: bytes),
              let newline = MalformedBytes.find([0x0A], in: bytes, from: marker) else { return nil }
        headerEnd = newline + 1
        format = ""
        lineEnds = []
        elements = []
        var start = 0
        for i in 0..<headerEnd where bytes[i] == 0x0A {
            lineEnds.append(i + 1)
            let words = String(decoding: bytes[start..<i], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.first == "format", words.count > 1 { format = words[1] }
            if words.first == "element", words.count == 3, let count = Int(words[2]) {
                elements.append(Element(name: words[1], count: count, offsets: [:], rowSize: 0, line: start..<i))
            }
            if words.first == "property", var element = elements.popLast() {
                if words.count == 3, let size = Self.sizes[words[1]], let row = element.rowSize {
                    element.offsets[words[2]] = (row, words[1])
                    element.rowSize = row + size
                } else {
                    element.rowSize = nil
                }
                elements.append(element)
            }
            start = i + 1
        }
    }

    var binary: Bool { format.hasPrefix("binary") }

    /// Where each element's rows start in a binary body (nil after an element with lists).
    var elementStarts: [Int?] {
        var at: Int? = headerEnd
        return elements.map { element in
            defer { at = at.flatMap { a in element.rowSize.map { a + $0 * element.count } } }
            return at
        }
    }
}

// MARK: - Mutations per format

private enum MalformedInputs {
    /// `full` false (large files, large scenes) keeps the header mutations and drops the
    /// samples over the body, which would each decode the whole scene.
    static func mutations(of bytes: [UInt8], kind: SeedKind, seed: String, full: Bool) -> [Mutation] {
        var rng = MalformedBytes.Generator(state: seed.hashValueStable)
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
    static func spzLegacy(_ b: [UInt8], full: Bool, rng: inout MalformedBytes.Generator) -> [Mutation] {
        var out: [Mutation] = []
        for cut in Set([1, 2, 9, 10, 11, b.count - 8, b.count - 5, b.count - 4, b.count - 1]) where cut > 0 && cut < b.count {
            out.append(Mutation(label: "gzip cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure([.truncated, .corrupt, .badMagic])))
        }
        guard let payload = MalformedBytes.gunzip(b), payload.count >= 16 else { return out }
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
            out.append(Mutation(label: "payload cut at \(cut)", bytes: MalformedBytes.gzip(Array(payload[0..<cut])), expect: .failure(kinds)))
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
                out.append(Mutation(label: "payload \(name) = \(v)", bytes: MalformedBytes.gzip(MalformedBytes.setting(payload, at, v)), expect: expect))
            }
        }
        for (name, at, values) in [("shDegree", 12, [5, 255]), ("fractionalBits", 13, [32, 255])] {
            for v in values {
                out.append(Mutation(label: "payload \(name) = \(v)", bytes: MalformedBytes.gzip(MalformedBytes.setting(payload, at, UInt8(v))),
                                    expect: .failure([.badHeader])))
            }
        }
        for i in 0..<(full ? 16 : 0) {
            out.append(Mutation(label: "payload flip byte \(i)", bytes: MalformedBytes.gzip(MalformedBytes.flipping(payload, i, bit: i)), expect: .anyOutcome))
        }
        if full {
            for _ in 0..<8 {
                let at = rng.below(payload.count)
                out.append(Mutation(label: "payload flip byte \(at)", bytes: MalformedBytes.gzip(MalformedBytes.flipping(payload, at, bit: rng.below(8))),
                                    expect: .anyOutcome))
            }
        }
        // One splat more than the blocks hold: truncated, unless extension or trailing bytes
        // happen to supply the missing bytes.
        out.append(Mutation(label: "payload count = \(n + 1)", bytes: MalformedBytes.gzip(MalformedBytes.setting(payload, 8, UInt32(n + 1))),
                            expect: payload.count == attributesEnd ? .failure([.truncated]) : .anyOutcome))
        out.append(Mutation(label: "header-only payload", bytes: MalformedBytes.gzip(Array(payload[0..<16])), expect: .failure([.truncated])))
        return out
    }

    // PLY and compressed PLY (formats.md 3, 4, 8.4).
    static func ply(_ b: [UInt8], compressed: Bool, full: Bool) -> [Mutation] {
        guard let layout = PLYLayout(b) else { return [] }
        var out: [Mutation] = []
        // Cuts inside the header: no end_header.
        for end in layout.lineEnds.dropLast() {
            out.append(Mutation(label: "header cut at \(end)", bytes: Array(b[0..<end]), expect: .failure([.badHeader, .badMagic])))
        }
        for cut in [1, 3] { out.append(Mutation(label: "cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure([.badMagic]))) }
        // Cuts in the body: at each element start, after its first row and before its last.
        let vertexIndex = layout.elements.firstIndex { $0.name == "vertex" }
        for (index, (element, start)) in zip(layout.elements, layout.elementStarts).enumerated() {
            guard let start, let row = element.rowSize, layout.binary else { continue }
            // An element after `vertex` may be ignored; one before it (or vertex itself) is needed.
            let needed = vertexIndex.map { index <= $0 } ?? true
            let ends = element.count > 0 ? [start, start + row, start + row * element.count - 1] : [start]
            for cut in ends where cut < b.count {
                out.append(Mutation(label: "cut in element \(element.name) at \(cut)", bytes: Array(b[0..<cut]),
                                    expect: needed && element.count > 0 ? .failure([.truncated]) : .anyOutcome))
            }
        }
        out.append(Mutation(label: "header only", bytes: Array(b[0..<layout.headerEnd]),
                            expect: layout.elements.allSatisfy({ $0.count == 0 }) ? .anyOutcome : .failure([.truncated])))
        // Counts set to extremes, as decimal text.
        for (index, element) in layout.elements.enumerated() {
            let texts = ["0", "1", "2", "-1", "2147483647", "4294967295", "9223372036854775808", "18446744073709551615",
                         "99999999999999999999999"]
            for text in texts where text != String(element.count) {
                var copy = Array(b[0..<element.line.lowerBound]) + Array("element \(element.name) \(text)".utf8)
                copy += b[element.line.upperBound...]
                out.append(Mutation(label: "element \(element.name) count \(text)", bytes: copy,
                                    expect: countExpectation(text, element: element.name, compressed: compressed,
                                                             afterVertex: vertexIndex.map { index > $0 } ?? false)))
            }
        }
        // Non-finite floats in the first and last vertex rows (binary little-endian floats only).
        if layout.format == "binary_little_endian", let v = vertexIndex, let start = layout.elementStarts[v],
           let row = layout.elements[v].rowSize, layout.elements[v].count > 0, !compressed {
            let element = layout.elements[v]
            for name in ["x", "opacity", "scale_0", "rot_0", "f_dc_0", "f_rest_0"] {
                guard let property = element.offsets[name], property.type == "float" || property.type == "float32" else { continue }
                for (label, value) in [("NaN", Float.nan), ("+inf", Float.infinity), ("-inf", -Float.infinity)] {
                    for rowIndex in Set([0, element.count - 1]) {
                        let at = start + rowIndex * row + property.offset
                        guard at + 4 <= b.count else { continue }
                        out.append(Mutation(label: "\(name) of row \(rowIndex) = \(label)",
                                            bytes: MalformedBytes.setting(b, at, value.bitPattern),
                                            expect: .scene(count: element.count - (nonFiniteKept(name, value) ? 0 : 1))))
                    }
                }
            }
        }
        return out
    }

    /// formats.md 8.4: ±∞ opacity and a −∞ log-scale are kept; everything else non-finite is dropped.
    static func nonFiniteKept(_ property: String, _ value: Float) -> Bool {
        if value.isNaN { return false }
        if property == "opacity" { return true }
        if property.hasPrefix("scale_") { return value < 0 }
        return false
    }

    static func countExpectation(_ text: String, element: String, compressed: Bool, afterVertex: Bool) -> Mutation.Expectation {
        switch text {
        case "0", "1", "2":
            // Fewer rows than the body holds reads as a shorter file (other elements may then
            // misparse): any documented outcome.
            return .anyOutcome
        case "2147483647":
            // Fits the count grammar; the decoded size is far over 64 MiB. A compressed PLY may
            // first see its chunk count disagree (bad_header), and an element other than vertex
            // only runs out of bytes.
            if element == "vertex" { return .failure(compressed ? [.tooLarge, .badHeader] : [.tooLarge]) }
            // Elements after vertex are never read (formats.md 3.1).
            return afterVertex ? .anyOutcome : .failure([.truncated, .badHeader, .tooLarge])
        default:
            // Negative, above 2³¹−1 or overflowing: the count grammar rejects it.
            return .failure([.badHeader])
        }
    }

    // Bundled SOG (formats.md 5.1, 8.4): cuts at zip records, lying directories, garbage images, counts.
    static func sogZip(_ b: [UInt8], full: Bool, rng: inout MalformedBytes.Generator) -> [Mutation] {
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
                out.append(Mutation(label: "\(entry.name) replaced by \(label)", bytes: MalformedBytes.storedZip(copy),
                                    expect: .failure([.corrupt, .unsupported, .badTexture])))
            }
        }
        if let m = entries.firstIndex(where: { $0.0 == "meta.json" }) {
            var copy = entries
            copy[m].1 = rng.bytes(64)
            out.append(Mutation(label: "meta.json replaced by garbage", bytes: MalformedBytes.storedZip(copy), expect: .failure([.badMeta])))
            out.append(Mutation(label: "meta.json only", bytes: MalformedBytes.storedZip([entries[m]]), expect: .failure([.truncated])))
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
            out.append(Mutation(label: "meta count = \(text)", bytes: MalformedBytes.storedZip(copy),
                                expect: kinds.map { .failure($0) } ?? .anyOutcome))
        }
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

private extension String {
    /// A hash that does not change between runs (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 { utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 } }
}

// MARK: - Checking outcomes

/// Decodes through the library's front door and says what is wrong with the outcome, if anything.
private enum OutcomeCheck {
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

/// Peak resident set of this process in bytes (getrusage). Monotonic: a decode that allocated
/// and touched more than the growth it shows cannot have happened.
private func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss * 1024
}

// MARK: - Tests

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

// MARK: - Named hostile inputs

/// `Regressions/` beside this file: inputs the fuzzer found (each once a crash, hang or leak)
/// and the named hostile cases, replayed by `tools/fuzz/run` under libFuzzer's malloc limit.
/// Names are `<fuzz target>--<what>.<ext>`.
private let regressionFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")

/// A 3DGS PLY header (all-float vertex, SH degree 3) declaring `count` vertices.
private func gaussianPLYHeader(count: Int, restCount: Int = 45) -> [UInt8] {
    let names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<restCount).map { "f_rest_\($0)" }
        + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    let text = "ply\nformat binary_little_endian 1.0\nelement vertex \(count)\n" + names.map { "property float \($0)\n" }.joined() + "end_header\n"
    return Array(text.utf8)
}

private func decodeError(_ bytes: [UInt8], name: String, limits: DecodeLimits) -> SplatError? {
    if case .failure(let error) = OutcomeCheck.decode(bytes, name: name, limits: limits) { return error }
    return nil
}

@Suite("Hostile inputs", .serialized)
struct HostileInputTests {
    /// Runs `body` and returns how much the process's peak RSS grew. The sizes these cases claim
    /// (tens to hundreds of GB) cannot be allocated on a machine with tens of GB under the
    /// kernel's default overcommit heuristic, so an allocation before the check would trap; the
    /// RSS bound additionally shows nothing of the claimed size was touched.
    private func peakGrowth(_ body: () -> Void) -> Int {
        let before = peakResidentBytes()
        body()
        return peakResidentBytes() - before
    }

    @Test("the 4 KB gzip bomb is too_large under a 1 MiB ceiling, decided from its 16-byte header")
    func gzipBomb() throws {
        let bomb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("bomb-v2-4mib.spz"))))
        #expect(bomb.count == 4102)
        let small = DecodeLimits(maxDecodedBytes: 1 << 20)
        var error: SplatError?
        let growth = peakGrowth { error = decodeError(bomb, name: "bomb.spz", limits: small) }
        // 220,000 splats × 56 bytes (degree 0) = 12,320,000 > 1,048,576: refused from the header,
        // so nothing past the first 16 inflated bytes was produced.
        #expect(error?.kind == .tooLarge)
        #expect(error?.message.contains("12320000") == true && error?.message.contains("1048576") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // The same payload with a header claiming one splat passes the header check; then the
        // inflater's output cap must stop it (formats.md 2.2: at most max(1 MiB, P) past P).
        guard let payload = MalformedBytes.gunzip(bomb) else { Issue.record("bomb does not inflate"); return }
        #expect(payload.count == 16 + 220_000 * 19)
        let lying = MalformedBytes.gzip(MalformedBytes.setting(payload, 8, UInt32(1)))
        let capped = decodeError(lying, name: "bomb.spz", limits: small)
        #expect(capped?.kind == .tooLarge, "\(String(describing: capped))")
        // Under the default ceiling the bomb is a valid scene of 220,000 zero splats.
        let whole = try #require(try? OutcomeCheck.decode(bomb, name: "bomb.spz", limits: DecodeLimits()).get())
        #expect(whole.scene.count == 220_000)
    }

    @Test("a v4 header claiming 2^31 splats is implausible_count; 2^31−1 in a file big enough for the ratio is too_large")
    func v4Claims() throws {
        let file = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent("spz-v4--count-2pow31.spz")))
        #expect(MalformedBytes.u32(file, 8) == 1 << 31)
        var error: SplatError?
        var growth = peakGrowth { error = decodeError(file, name: "claim.spz", limits: DecodeLimits()) }
        #expect(error?.kind == .implausibleCount, "\(String(describing: error))")
        #expect(error?.field == "numPoints" || error?.offset == 8, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // 2³¹−1 splats pass N ≤ fileSize·1024/9 only in a file of ≥ 18,874,368 bytes. At degree 3
        // they would decode to 2147483647 × 236 = 506,806,140,692 bytes: too_large from the header.
        // The TOC is consistent (expected uncompressed sizes, streams ending at EOF), so only the
        // size can refuse it, whichever order the decoder checks the TOC and the ceiling in.
        let n = UInt64(Int32.max)
        var big = [UInt8](repeating: 0, count: 18_874_368 + 128)
        big.replaceSubrange(0..<32, with: Array(file[0..<32]))
        big = MalformedBytes.setting(big, 8, UInt32(n))
        big[12] = 3
        big[15] = 6
        let sizes: [UInt64] = [9 * n, n, 3 * n, 3 * n, 4 * n, 3 * 15 * n]
        let streamsStart = 32 + 16 * 6
        for (i, size) in sizes.enumerated() {
            let compressed = i < 5 ? UInt64(1) : UInt64(big.count - streamsStart - 5)
            big = MalformedBytes.setting(big, 32 + 16 * i, compressed)
            big = MalformedBytes.setting(big, 32 + 16 * i + 8, size)
        }
        growth = peakGrowth { error = decodeError(big, name: "claim.spz", limits: DecodeLimits()) }
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("506806140692") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
    }

    @Test("a PLY claiming 10^9 SH3 vertices is too_large from its header under the default ceiling")
    func billionVertexPLY() throws {
        let file = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent("ply--billion-vertices-sh3.ply")))
        #expect(file.starts(with: gaussianPLYHeader(count: 1_000_000_000)))
        // formats.md 8.3: 10⁹ ≤ 2³¹−1 is a valid count; at degree 3 each splat is 236 bytes, so
        // 236,000,000,000 bytes > 805,306,368: too_large, before the missing body is noticed.
        let header = try #require(try? file.withUnsafeBytes { raw in try SplatFile.readHeader(InputBytes(copying: raw, name: "claim.ply")) })
        #expect(header.count == 1_000_000_000 && header.shDegree == 3)
        let size = DecodeLimits().sizeVerdict(count: header.count, fileDegree: header.shDegree)
        #expect(size.declaredDecodedBytes == 236_000_000_000)
        #expect(!size.fitsServiceCeiling)
        var error: SplatError?
        let growth = peakGrowth { error = decodeError(file, name: "claim.ply", limits: DecodeLimits()) }
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("236000000000") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // Dropping every SH band still leaves 56,000,000,000 bytes.
        var noSH = DecodeLimits()
        noSH.maxShDegree = 0
        let degree0 = decodeError(file, name: "claim.ply", limits: noSH)
        #expect(degree0?.kind == .tooLarge && degree0?.message.contains("56000000000") == true, "\(String(describing: degree0))")
        // A claim that fits the default ceiling (3,000,000 × 236 = 708,000,000 bytes) but has no
        // body is truncated, found from count × rowSize before the scene is allocated.
        let fits = gaussianPLYHeader(count: 3_000_000) + [UInt8](repeating: 0, count: 248)
        let truncated = decodeError(fits, name: "claim.ply", limits: DecodeLimits())
        #expect(truncated?.kind == .truncated, "\(String(describing: truncated))")
    }

    // The fourth named case, a SOG whose images claim 16384 × 16384, is
    // SOGDecoderTests.hugeImagesAreRefusedBeforeAllocation; its file is replayed below and by the fuzzer.

    @Test("non-finite PLY values are dropped or kept as formats.md 8.4 says, and fail under strict")
    func nonFinitePLY() throws {
        // Four splats, SH degree 1, all finite; splat 1 gets the special value.
        let header = gaussianPLYHeader(count: 4, restCount: 9)
        let names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<9).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
        func file(_ property: String, _ value: Float) -> [UInt8] {
            var out = header
            for i in 0..<4 {
                for name in names {
                    var v: Float = name.hasPrefix("rot_0") ? 1 : name.hasPrefix("scale") ? -2 : Float(i) * 0.25
                    if i == 1, name == property { v = value }
                    out += MalformedBytes.le(v.bitPattern)
                }
            }
            return out
        }
        let cases: [(String, Float, Bool)] = [
            ("x", .nan, false), ("z", .infinity, false), ("f_dc_1", -.infinity, false), ("f_rest_8", .nan, false),
            ("rot_0", .infinity, false), ("rot_2", .nan, false), ("opacity", .nan, false),
            ("scale_0", .infinity, false), ("scale_2", .nan, false),
            ("opacity", .infinity, true), ("opacity", -.infinity, true), ("scale_1", -.infinity, true),
        ]
        for (property, value, kept) in cases {
            let bytes = file(property, value)
            let decoded = try #require(try? OutcomeCheck.decode(bytes, name: "nf.ply").get(), "\(property) = \(value)")
            #expect(OutcomeCheck.invalidValue(decoded) == nil)
            let s = decoded.scene
            if kept {
                #expect(s.count == 4, "\(property) = \(value) is kept")
                if property == "opacity" { #expect(s.alpha[1] == (value > 0 ? 1 : 0)) }
                if property == "scale_1" { #expect(s.logScaleY[1] == -.infinity && s.logScaleX[1] == -2) }
            } else {
                #expect(s.count == 3, "\(property) = \(value) is dropped")
                #expect(s.warnings.contains { $0.contains("non_finite") && $0.contains("first index 1") }, "\(s.warnings)")
                // Splats 0, 2, 3 remain in order.
                #expect(s.x[1] == 0.5 && s.x[2] == 0.75)
                var strict = mutationLimits
                strict.strict = true
                let error = decodeError(bytes, name: "nf.ply", limits: strict)
                #expect(error?.kind == .nonFinite && error?.field == "splat 1", "\(String(describing: error))")
            }
        }
    }

    @Test(".splat: σ = 0 keeps a −∞ log-scale; NaN, negative and +∞ σ and NaN positions are dropped")
    func nonFiniteDotSplat() throws {
        func record(x: Float, sigma: Float) -> [UInt8] {
            var out: [UInt8] = []
            for v in [x, 1, 2, sigma, 0.5, 0.5] { out += MalformedBytes.le(v.bitPattern) }
            return out + [200, 100, 50, 255, 255, 128, 128, 128]
        }
        let cases: [(Float, Float, Bool)] = [(.nan, 1, false), (.infinity, 1, false), (0, .nan, false), (0, -1, false),
                                             (0, .infinity, false), (0, 0, true), (0, -0.0, true), (0, 1e-45, true)]
        for (x, sigma, kept) in cases {
            let bytes = record(x: 1, sigma: 1) + record(x: x, sigma: sigma) + record(x: 3, sigma: 1)
            let decoded = try #require(try? OutcomeCheck.decode(bytes, name: "nf.splat").get(), "x \(x), σ \(sigma)")
            #expect(OutcomeCheck.invalidValue(decoded) == nil)
            #expect(decoded.scene.count == (kept ? 3 : 2), "x \(x), σ \(sigma)")
            if kept {
                #expect(decoded.scene.logScaleX[1] == log(sigma), "x \(x), σ \(sigma)")
                #expect(decoded.scene.alpha[1] == 1)
            }
        }
    }

    @Test("header-only files fail with the kind of their missing body")
    func headerOnly() throws {
        let v4 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v4.spz"))))
        let legacy = try #require(MalformedBytes.gunzip([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v3.spz"))))))
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny-compressed.ply"))))
        let compressedHeader = try #require(PLYLayout(compressed)).headerEnd
        let sog = try #require(MalformedBytes.zipEntries([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny.sog"))))))
        let meta = try #require(sog.entries.first { $0.name == "meta.json" })
        let cases: [(String, [UInt8], SplatErrorKind)] = [
            ("v4.spz", Array(v4[0..<32]), .badTOC),  // the TOC at 32 runs past the end
            ("v4.spz", Array(v4[0..<32 + 16 * Int(v4[15])]), .truncated),  // TOC present, streams missing
            ("v3.spz", MalformedBytes.gzip(Array(legacy[0..<16])), .truncated),
            ("3dgs.ply", gaussianPLYHeader(count: 4), .truncated),
            ("c.ply", Array(compressed[0..<compressedHeader]), .truncated),
            ("meta-only.sog", MalformedBytes.storedZip([("meta.json", meta.data)]), .truncated),
            ("zero.splat", [], .empty),
        ]
        for (name, bytes, kind) in cases {
            let error = decodeError(bytes, name: name, limits: mutationLimits)
            #expect(error?.kind == kind, "\(name): \(String(describing: error))")
        }
    }

    /// Every file in Regressions/ with the error it must produce (kind and a message fragment),
    /// or, for kind nil, a scene whose warnings include the fragment.
    static let regressions: [(file: String, kind: SplatErrorKind?, message: String)] = [
        // LeakSanitizer: the per-stream error slots of a v4 decode were freed without being
        // deinitialized, leaking every failed stream's error (fixed in SPZDecoder.decodeStreams).
        ("spz-v4--failed-stream-error-leak.spz", .corrupt, "zstd error in stream rotations"),
        // 1 KB of gzip inflating to 131,071 empty extension records after one splat: each record
        // used to add a warning and a listed record (≈ 100 bytes of memory per 8 inflated bytes,
        // so a sub-megabyte file under the default ceiling could take gigabytes). Now capped.
        ("spz-legacy--131071-empty-extension-records.spz", nil, "131071 extension records; only the first 64 are listed"),
        ("spz-v4--count-2pow31.spz", .implausibleCount, "numPoints 2147483648"),
        ("ply--billion-vertices-sh3.ply", .tooLarge, "236000000000"),
        ("sog-zip--16384-square-images.sog", .tooLarge, "16384×16384"),
        // 35 KB: meta.json deflated from 30 MiB of "0," (15.7 million JSON values). Foundation's
        // parser took 944 MB and 10 s for it; now refused from a count of separators first.
        ("sog-zip--json-value-bomb.sog", .tooLarge, "JSON values; parsing them would take about"),
    ]

    @Test("each regression input ends as recorded, and the folder holds no unlisted file")
    func regressionInputs() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: regressionFolder.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(files == Self.regressions.map(\.file).sorted())
        for (file, kind, message) in Self.regressions {
            let bytes = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent(file)))
            switch OutcomeCheck.decode(bytes, name: file, limits: DecodeLimits()) {
            case .failure(let error):
                #expect(error.kind == kind && error.message.contains(message), "\(file): \(error)")
            case .success(let decoded):
                #expect(kind == nil, "\(file) decoded")
                #expect(OutcomeCheck.invalidValue(decoded) == nil)
                let warnings = decoded.scene.warnings
                #expect(warnings.contains { $0.contains(message) } && warnings.count <= SPZExtensionsLimit.warnings, "\(file): \(warnings.count) warnings, last \(warnings.last ?? "")")
                #expect((decoded.header.details["extensions"]?.split(separator: ",").count ?? 0) <= 64)
            }
            // And under the small ceiling the fuzzer uses.
            if case .failure(let small) = OutcomeCheck.decode(bytes, name: file, limits: DecodeLimits(maxDecodedBytes: 4 << 20)) {
                #expect(documentedKinds.contains(small.kind), "\(file): \(small)")
            }
        }
    }
}

/// How many warnings an SPZ file may produce at most: 64 listed extension warnings, their
/// summary, and the few header and trailer warnings.
private enum SPZExtensionsLimit {
    static let warnings = 64 + 8
}
