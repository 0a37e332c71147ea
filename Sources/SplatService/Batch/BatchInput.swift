import Foundation
import SplatCore

/// One input of a batch: the path as given or found, the output base its outputs are named
/// after, and a problem found before reading it (a missing path), which becomes its report line.
public struct BatchInput: Sendable, Equatable {
    public var path: String
    /// Where its outputs go, relative to the output folder and without an extension:
    /// `<stem>.png`, `<stem>.sheet.png`, `<stem>.webp`, `<stem>/frame_NNN.png`. Inputs found by
    /// scanning a folder keep their place in its tree (`sub/scene`), so names never depend on
    /// the order of the inputs; unique within the batch.
    public var stem: String
    public var problem: SplatError?
    /// The input's path relative to the batch: below the scanned folder for inputs found by a
    /// scan, the path as given otherwise. The same on every machine that runs the same command
    /// over the same tree, so `--shard` splits by it.
    public var relativePath: String

    public init(path: String, stem: String, problem: SplatError? = nil, relativePath: String? = nil) {
        self.path = path
        self.stem = stem
        self.problem = problem
        self.relativePath = relativePath ?? path
    }

    /// Extensions a folder scan picks up (case-insensitive). A folder holding `meta.json` is an
    /// unbundled SOG scene and is taken whole.
    public static let sceneExtensions: Set<String> = ["spz", "ply", "sog", "splat", "glb", "gltf", "ksplat"]
    /// How deep a folder scan descends.
    public static let maxScanDepth = 32

    /// Expands command-line arguments into inputs, in argument order:
    /// - a file is taken as given, whatever its extension;
    /// - a folder with a `meta.json` is one SOG scene;
    /// - any other folder is scanned recursively for entries with a scene extension and for SOG
    ///   folders, skipping names that start with `.`, each folder's entries sorted by name.
    ///   Links to folders are not followed (a link to `..` or `/` would walk without end); a
    ///   link with a scene extension is an input like a file, and one that dangles gets its
    ///   report line with the `io` error of opening it;
    /// - a path that does not exist becomes an input with an `io` problem (reported, not fatal).
    /// A scanned input's output base is its path below the scanned folder without the extension
    /// (the folder's own path for SOG folders); a file given directly uses its name. A base whose
    /// output names clash with an earlier input's or with `reserved` (compared
    /// case-insensitively) gets `-2`, `-3`, … appended.
    public static func expand(_ arguments: [String], reserved: [String] = []) -> [BatchInput] {
        var found: [(path: String, base: String, problem: SplatError?, relative: String)] = []
        for argument in arguments {
            guard let status = FileIO.status(atPath: argument) else {
                found.append((argument, stem(for: argument), SplatError(.io, "no such file or folder", file: argument), argument))
                continue
            }
            if status.kind == .directory && !isSOGFolder(argument) {
                for (path, base, relative) in scan(argument, relative: "", depth: 0) { found.append((path, base, nil, relative)) }
            } else {
                found.append((argument, stem(for: argument), nil, argument))
            }
        }
        var namer = StemAllocator(reserved: reserved)
        return found.map { BatchInput(path: $0.path, stem: namer.allocate($0.base), problem: $0.problem, relativePath: $0.relative) }
    }

    /// The scene paths under `folder` with their output bases and relative paths, sorted per folder.
    static func scan(_ folder: String, relative: String, depth: Int) -> [(String, String, String)] {
        guard depth < maxScanDepth,
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: [(String, String, String)] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            let inner = relative.isEmpty ? name : relative + "/" + name
            guard let entry = FileIO.status(atPath: path, followLinks: false) else { continue }
            let isScene = sceneExtensions.contains((name as NSString).pathExtension.lowercased())
            if entry.kind == .directory {
                if isSOGFolder(path) { found.append((path, inner, inner)) } else { found += scan(path, relative: inner, depth: depth + 1) }
            } else if isScene {
                // Files, links (to files, folders or nothing) and special files alike: opening
                // the input decides, and reports what it is.
                found.append((path, (inner as NSString).deletingPathExtension, inner))
            }
        }
        return found
    }

    static func isSOGFolder(_ path: String) -> Bool {
        FileIO.status(atPath: (path as NSString).appendingPathComponent("meta.json"))?.kind == .regular
    }

    /// `scenes/a.spz` → `a`; `scenes/logo/` and `scenes/logo/meta.json` → `logo`.
    static func stem(for path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        var name = (trimmed as NSString).lastPathComponent
        if name.lowercased() == "meta.json" {
            name = ((trimmed as NSString).deletingLastPathComponent as NSString).lastPathComponent
        } else if sceneExtensions.contains((name as NSString).pathExtension.lowercased()) {
            name = (name as NSString).deletingPathExtension
        }
        if name.isEmpty || name == "." || name == ".." || name == "/" { name = "scene" }
        return name
    }
}
