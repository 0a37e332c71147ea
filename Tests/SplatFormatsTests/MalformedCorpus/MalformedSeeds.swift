import Foundation
import TestSupport

/// What a seed file is, from its bytes.
enum SeedKind {
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
let maxSeedBytes = 2 << 20
/// Files above this size get header mutations only.
let fullMutationBytes = 128 << 10
/// Real files are cut down to this many splats, structure intact (same header, blocks, streams,
/// extensions), so a mutation that still decodes costs microseconds, not a whole scene.
let seedSplats = 24

/// The vector and corpus files the suite damages, as paths relative to `../shared`. Reference
/// decodes (`*.decoded*.ply`, written by one tool in one layout) are left out after the first.
func seedNames() -> [String] {
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

func sharedPath(_ name: String) -> String { Fixtures.shared.appendingPathComponent(name).path }

/// The bytes of a seed, cut down to `seedSplats` splats; an unbundled SOG `meta.json` comes
/// back as a stored bundle of its folder. (The bomb vector is cut down too; HostileInputTests
/// uses it whole.)
func seedBytes(_ name: String) throws -> [UInt8] {
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
    return TestZipWriter.stored(entries)
}
