import SplatCore

/// Detects a file's format from its first bytes, using the name only where a format has no magic
/// (`formats.md` section 1). A name that disagrees with the bytes gives a warning; the bytes win.
public enum FormatSniffer {
    public struct Result: Sendable, Equatable {
        public var format: SplatFormat
        public var warnings: [String]
    }

    /// Bytes of a file's start that detection looks at (callers pass this many, fewer for a
    /// shorter file).
    public static let windowBytes = 4096

    /// `prefix` should hold at least the first 64 bytes of the file (fewer for tiny files).
    /// `name` is the file or path name, used for `.splat` and `meta.json`.
    public static func detect(prefix: UnsafeRawBufferPointer, name: String?) throws(SplatError) -> Result {
        let lower = (name ?? "").lowercased()
        let ext: String? = lower.split(separator: "/").last.flatMap { last in
            last.contains(".") ? String(last.split(separator: ".").last!) : nil
        }
        func byte(_ i: Int) -> UInt8? { i < prefix.count ? prefix[i] : nil }
        func result(_ f: SplatFormat, expected: [String]) -> Result {
            var warnings: [String] = []
            if let ext, !expected.contains(ext), !lower.hasSuffix("meta.json") {
                warnings.append("file name ends in .\(ext) but the bytes are \(f.rawValue); trusting the bytes")
            }
            return Result(format: f, warnings: warnings)
        }
        if prefix.isEmpty {
            throw SplatError(.empty, "the file is empty", file: name)
        }
        if byte(0) == 0x67, byte(1) == 0x6C, byte(2) == 0x54, byte(3) == 0x46 {
            return result(.gltf, expected: ["glb", "gltf"])
        }
        if byte(0) == 0x4E, byte(1) == 0x47, byte(2) == 0x53, byte(3) == 0x50 {
            return result(.spz, expected: ["spz"])
        }
        if byte(0) == 0x1F, byte(1) == 0x8B {
            return result(.spz, expected: ["spz", "gz"])
        }
        if byte(0) == 0x70, byte(1) == 0x6C, byte(2) == 0x79, byte(3) == 0x0A || (byte(3) == 0x0D && byte(4) == 0x0A) {
            // Compressed PLY is told apart by its header (packed_position), which the PLY reader parses.
            let text = String(decoding: prefix, as: UTF8.self)
            let compressed = text.contains("packed_position")
            return result(compressed ? .compressedPLY : .ply, expected: ["ply"])
        }
        if byte(0) == 0x50, byte(1) == 0x4B, byte(2) == 0x03, byte(3) == 0x04 {
            return result(.sog, expected: ["sog", "zip"])
        }
        if lower.hasSuffix("lod-meta.json") {
            throw SplatError(.unsupported, "streamed SOG (lod-meta.json) is not supported", file: name)
        }
        if lower.hasSuffix("meta.json") {
            var i = 0
            if byte(0) == 0xEF, byte(1) == 0xBB, byte(2) == 0xBF { i = 3 }
            while let b = byte(i), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
            if byte(i) == UInt8(ascii: "{") { return Result(format: .sog, warnings: []) }
            throw SplatError(.badMeta, "meta.json does not start with a JSON object", file: name)
        }
        if ext == "splat" { return Result(format: .splat, warnings: []) }
        // .ksplat has no magic (bytes 0–1 are its version); a .glb without "glTF" is refused by
        // the GLB reader as bad_magic (formats-gltf.md 11.1).
        if ext == "ksplat" { return Result(format: .ksplat, warnings: []) }
        if ext == "glb" || ext == "gltf" || looksLikeGLTFJSON(prefix) { return Result(format: .gltf, warnings: []) }
        throw SplatError(.badMagic, "unrecognised file: no SPZ, PLY, SOG, glTF or .splat signature in the first bytes", file: name)
    }

    /// `{` after an optional BOM and whitespace, with an `"asset"` key in the prefix: a glTF
    /// given without a name (a name ending in .gltf is enough on its own).
    private static func looksLikeGLTFJSON(_ prefix: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        if prefix.count >= 3, prefix[0] == 0xEF, prefix[1] == 0xBB, prefix[2] == 0xBF { i = 3 }
        while i < prefix.count, [0x20, 0x09, 0x0A, 0x0D].contains(prefix[i]) { i += 1 }
        let key = Array("\"asset\"".utf8)
        guard i + key.count < prefix.count, prefix[i] == UInt8(ascii: "{") else { return false }
        return ((i + 1)...(prefix.count - key.count)).contains { start in
            (0..<key.count).allSatisfy { prefix[start + $0] == key[$0] }
        }
    }
}
