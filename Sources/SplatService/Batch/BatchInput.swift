import Foundation
import SplatCore

/// One input of a batch: the path as given or found, the base name its outputs use, and a
/// problem found before reading it (a missing path), which becomes its report line.
public struct BatchInput: Sendable, Equatable {
    public var path: String
    /// Unique within the batch: `<stem>.png`, `<stem>.sheet.png`, `<stem>.webp`, `<stem>/`.
    public var stem: String
    public var problem: SplatError?

    public init(path: String, stem: String, problem: SplatError? = nil) {
        self.path = path
        self.stem = stem
        self.problem = problem
    }

    /// Extensions a folder scan picks up (case-insensitive). A folder holding `meta.json` is an
    /// unbundled SOG scene and is taken whole.
    public static let sceneExtensions: Set<String> = ["spz", "ply", "sog", "splat"]
    /// How deep a folder scan descends (a guard against symbolic-link loops).
    public static let maxScanDepth = 32

    /// Expands command-line arguments into inputs, in argument order:
    /// - a file is taken as given, whatever its extension;
    /// - a folder with a `meta.json` is one SOG scene;
    /// - any other folder is scanned recursively for files with a scene extension and for SOG
    ///   folders, skipping names that start with `.`, each folder's entries sorted by name;
    /// - a path that does not exist becomes an input with an `io` problem (reported, not fatal).
    /// Stems come from the file name without its extension (the folder name for SOG folders and
    /// `meta.json`); a stem whose output names would clash with an earlier input's (compared
    /// case-insensitively) gets `-2`, `-3`, … appended.
    public static func expand(_ arguments: [String]) -> [BatchInput] {
        var paths: [(String, SplatError?)] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                paths.append((argument, SplatError(.io, "no such file or folder", file: argument)))
                continue
            }
            if isDirectory.boolValue && !isSOGFolder(argument) {
                for found in scan(argument, depth: 0) { paths.append((found, nil)) }
            } else {
                paths.append((argument, nil))
            }
        }
        var namer = StemAllocator()
        return paths.map { BatchInput(path: $0.0, stem: namer.allocate(stem(for: $0.0)), problem: $0.1) }
    }

    /// The scene paths under `folder`, sorted per folder.
    static func scan(_ folder: String, depth: Int) -> [String] {
        guard depth < maxScanDepth,
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var found: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if isSOGFolder(path) { found.append(path) } else { found += scan(path, depth: depth + 1) }
            } else if sceneExtensions.contains((name as NSString).pathExtension.lowercased()) {
                found.append(path)
            }
        }
        return found
    }

    static func isSOGFolder(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: (path as NSString).appendingPathComponent("meta.json"))
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

/// Hands out stems whose output names do not collide.
struct StemAllocator {
    private var taken: Set<String> = []

    mutating func allocate(_ base: String) -> String {
        var candidate = base
        var n = 1
        while Self.outputNames(candidate).contains(where: taken.contains) {
            n += 1
            candidate = "\(base)-\(n)"
        }
        taken.formUnion(Self.outputNames(candidate))
        return candidate
    }

    static func outputNames(_ stem: String) -> [String] {
        [stem, stem + ".png", stem + ".sheet.png", stem + ".webp"].map { $0.lowercased() }
    }
}
