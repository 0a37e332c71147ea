import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// The folders `file://` inputs and outputs of a job must stay inside (`--input-root`,
/// `--output-root`), and the checks that keep them there. Without a root, any absolute path
/// is allowed, still without `..` segments.
///
/// Confinement is decided on resolved paths: the longest existing prefix of the path goes
/// through `realpath` (so a symbolic link pointing out of the root is caught) and the rest,
/// which does not exist yet and holds no `..`, is appended. Outputs are checked once more
/// after their folders are created, just before the write.
public struct JobLocationRoots: Sendable, Equatable {
    /// Resolved input root, nil for none.
    public let inputRoot: String?
    /// Resolved output root, nil for none.
    public let outputRoot: String?

    /// Roots must be absolute paths of existing folders (`invalid_argument` otherwise).
    public init(inputRoot: String? = nil, outputRoot: String? = nil) throws(SplatError) {
        self.inputRoot = try inputRoot.map { (root: String) throws(SplatError) -> String in try Self.resolveRoot(root, "input-root") }
        self.outputRoot = try outputRoot.map { (root: String) throws(SplatError) -> String in try Self.resolveRoot(root, "output-root") }
    }

    /// No roots: any absolute path without `..` segments.
    public static let unconfined = JobLocationRoots(resolvedInput: nil, resolvedOutput: nil)

    private init(resolvedInput: String?, resolvedOutput: String?) {
        inputRoot = resolvedInput
        outputRoot = resolvedOutput
    }

    /// The location of a job's `input`.
    public func input(_ text: String) throws(SplatError) -> JobLocation {
        try locate(text, role: .input, root: inputRoot)
    }

    /// The location of one of a job's outputs (`to`).
    public func output(_ text: String) throws(SplatError) -> JobLocation {
        try locate(text, role: .output, root: outputRoot)
    }

    /// Makes `bytes` durable at an output location: for a file, the missing folders are
    /// created (inside the output root), then the bytes are written atomically (temporary
    /// file, fsync, rename); for a URL, an HTTP PUT with `contentType` answered 2xx.
    public func store(_ bytes: [UInt8], at location: JobLocation, contentType: String,
                      transfer: URLTransfer, cancellation: CancellationToken = .none) throws(SplatError) {
        switch location {
        case .remote(let url):
            try transfer.put(bytes, to: url, contentType: contentType, cancellation: cancellation)
        case .file(let path):
            try cancellation.check("before writing \(path)")
            let parent = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw SplatError(.io, "cannot create folder \(parent): \(error.localizedDescription)", file: path)
            }
            // A link swapped in since the location was checked must not carry the write out.
            guard let resolved = Self.realPath(parent), Self.contains(outputRoot, resolved) else {
                throw SplatError(.badJob, "output \(path): its folder resolves outside the output root", file: path, field: "output")
            }
            try AtomicFileWriter.write(bytes, to: resolved + "/" + name)
        }
    }

    // MARK: - Confinement

    private func locate(_ text: String, role: JobLocation.Role, root: String?) throws(SplatError) -> JobLocation {
        switch try JobLocation.parse(text, role: role) {
        case .remote(let url):
            return .remote(url: url)
        case .file(let segments):
            let resolved = Self.resolve(segments)
            guard Self.contains(root, resolved) else {
                throw SplatError(.badJob, "\(role.rawValue) \(text): outside the \(role.rawValue) root \(root ?? "/")",
                                 field: role.rawValue)
            }
            return .file(path: resolved)
        }
    }

    /// `/` + segments with the longest existing prefix resolved by realpath.
    static func resolve(_ segments: [String]) -> String {
        var existing = segments.count
        while existing > 0 {
            if let real = realPath("/" + segments[0..<existing].joined(separator: "/")) {
                let rest = segments[existing...]
                return rest.isEmpty ? real : (real == "/" ? "" : real) + "/" + rest.joined(separator: "/")
            }
            existing -= 1
        }
        return "/" + segments.joined(separator: "/")
    }

    static func contains(_ root: String?, _ path: String) -> Bool {
        guard let root else { return true }
        return root == "/" || path == root || path.hasPrefix(root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func resolveRoot(_ root: String, _ field: String) throws(SplatError) -> String {
        guard root.hasPrefix("/") else { throw SplatError(.invalidArgument, "--\(field) must be an absolute path, got \(root)", field: field) }
        var isDirectory: ObjCBool = false
        guard let resolved = realPath(root), FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory),
              isDirectory.boolValue else {
            throw SplatError(.invalidArgument, "--\(field) \(root) is not an existing folder", field: field)
        }
        return resolved
    }
}
