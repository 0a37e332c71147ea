import Foundation
import SplatCore
import Testing
import TestSupport

/// The reference library's decodes (`spz_to_ply` output beside the corpus files), for comparing value by value.
extension SPZTestFiles {
    /// A reference `spz_to_ply` output: binary little-endian, every property a float.
    struct ReferencePLY {
        var count: Int
        var names: [String: Int]
        var rowFloats: Int
        var values: [Float]

        init(path: String) throws {
            var data = try bytes(path)
            if path.hasSuffix(".gz") {
                guard let inflated = TestGzip.gunzip(data) else { throw SplatError(.corrupt, "reference decode does not inflate", file: path) }
                data = inflated
            }
            let marker = Array("end_header\n".utf8)
            guard let end = (0..<data.count - marker.count).first(where: { data[$0..<$0 + marker.count].elementsEqual(marker) }) else {
                throw SplatError(.badHeader, "no end_header", file: path)
            }
            let text = String(decoding: data[0..<end], as: UTF8.self)
            count = 0
            names = [:]
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.first == "element", words.count == 3 { count = Int(words[2])! }
                if words.first == "property" {
                    #expect(words[1] == "float", "reference PLYs hold floats only")
                    names[String(words[2])] = names.count
                }
            }
            rowFloats = names.count
            let body = end + marker.count, total = count * rowFloats
            var floats = [Float](repeating: 0, count: total)
            floats.withUnsafeMutableBytes { dst in
                data.withUnsafeBytes { src in dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[body..<body + 4 * total])) }
            }
            values = floats // little-endian host, as the reference files are
        }

        func value(_ name: String, _ i: Int) -> Float { values[i * rowFloats + names[name]!] }
        /// A column reader with the name looked up once.
        func column(_ name: String) -> (Int) -> Float {
            let index = names[name]!, stride = rowFloats, values = values
            return { values[$0 * stride + index] }
        }
        var restCount: Int { names.keys.filter { $0.hasPrefix("f_rest_") }.count }
    }

    /// The reference decode that belongs to an SPZ file of the corpus: `X.v4.decoded.ply` when
    /// the reference stored one for a re-encode (v3 re-encodes decode to the same bytes), else
    /// `X.decoded.ply`, each possibly gzipped.
    static func referenceDecode(for spz: URL) -> String? {
        var stem = spz.deletingPathExtension().lastPathComponent
        for suffix in [".v4", ".v3"] where stem.hasSuffix(suffix) { stem.removeLast(suffix.count) }
        let folder = spz.deletingLastPathComponent().lastPathComponent == "reference"
            ? spz.deletingLastPathComponent() : spz.deletingLastPathComponent().appendingPathComponent("reference")
        let isOriginal = spz.deletingLastPathComponent().lastPathComponent != "reference"
        let candidates = isOriginal ? ["\(stem).decoded.ply"] : ["\(stem).v4.decoded.ply", "\(stem).decoded.ply"]
        for name in candidates {
            for ext in ["", ".gz"] {
                let path = folder.appendingPathComponent(name + ext).path
                if FileManager.default.fileExists(atPath: path) { return path }
            }
        }
        return nil
    }

    /// Every SPZ of the corpus except the raw negative case, with its reference decode.
    static func corpusFiles() -> [String] {
        var out: [String] = []
        let corpus = Fixtures.corpus
        for folder in ["spz", "spz/reference", "ply/reference"] {
            let dir = corpus.appendingPathComponent(folder)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            for name in names.sorted() where name.hasSuffix(".spz") && !name.contains("minimal-raw") {
                out.append("\(folder)/\(name)")
            }
        }
        return out
    }
}
