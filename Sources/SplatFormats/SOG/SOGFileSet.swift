import Foundation
import SplatCore

/// The files of one SOG scene, from a zip in memory or a folder on disk.
struct SOGFileSet {
    private let archive: ZipArchive?
    private let folder: String?
    private let metaPath: String?
    private let limits: DecodeLimits
    /// The `.sog` or `meta.json` name errors carry.
    let sceneLabel: String

    var isBundle: Bool { archive != nil }
    var metaLabel: String { label("meta.json") }

    init(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) {
        self.limits = limits
        switch source {
        case .bundle(let bytes, let name):
            sceneLabel = name ?? "bundle.sog"
            archive = try ZipArchive(bytes, file: sceneLabel)
            folder = nil
            metaPath = nil
        case .directory(let path):
            sceneLabel = path
            archive = nil
            metaPath = path
            folder = (path as NSString).deletingLastPathComponent
        }
    }

    /// What errors about `name` should call it: "archive.sog:name" or the resolved path.
    func label(_ name: String) -> String {
        if let archive { return archive.file.map { "\($0):\(name)" } ?? name }
        if name == "meta.json", let metaPath { return metaPath }
        return path(of: name)
    }

    private func path(of name: String) -> String {
        guard let folder, !folder.isEmpty else { return name }
        return (folder as NSString).appendingPathComponent(name)
    }

    /// `meta.json`, size-checked before it is read or inflated.
    func metaJSON() throws(SplatError) -> RetainedBytes {
        if let archive {
            guard let entry = archive.entry(named: "meta.json") else {
                throw SplatError(.truncated, "no meta.json at the root of the archive", file: sceneLabel)
            }
            guard entry.uncompressedSize <= limits.maxMetaJsonBytes else {
                throw SplatError(.tooLarge, "meta.json is \(entry.uncompressedSize) bytes; the limit is \(limits.maxMetaJsonBytes)", file: metaLabel)
            }
            return try archive.contents(of: entry, limits: limits)
        }
        return try readFile(metaPath ?? "meta.json", field: "meta.json")
    }

    /// An image named in `files`. Missing → `truncated`.
    func contents(of name: String, field: String) throws(SplatError) -> RetainedBytes {
        if let archive {
            guard let entry = archive.entry(named: name) else {
                throw SplatError(.truncated, "the archive has no entry \"\(name)\" named by \(field)", file: sceneLabel, field: field)
            }
            return try archive.contents(of: entry, limits: limits)
        }
        return try readFile(path(of: name), field: field)
    }

    /// Checks the summed sizes of the deflated archive entries among `names` against the ceiling.
    func checkInflatedTotal(of names: [String]) throws(SplatError) {
        guard let archive else { return }
        var total = 0
        for name in names {
            guard let entry = archive.entry(named: name), entry.method != 0 else { continue }
            guard let sum = CheckedSize.add(total, entry.uncompressedSize) else {
                throw SplatError(.tooLarge, "inflated image entries overflow a 64-bit size", file: sceneLabel)
            }
            total = sum
        }
        try limits.checkIntermediate(bytes: total, what: "the scene's inflated image entries", file: sceneLabel)
    }

    private func readFile(_ path: String, field: String) throws(SplatError) -> RetainedBytes {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw SplatError(.truncated, "file \(path) named by \(field) does not exist", file: path, field: field)
        }
        let input = try InputBytes(path: path, limits: limits)
        return RetainedBytes(bytes: input.bytes, owner: input)
    }
}
