import Foundation
import SplatCore

/// Checks a job's output paths before anything is decoded, so a doomed job fails in
/// milliseconds and nothing that is not ours is ever replaced:
/// - an existing output that is not a regular file (a device, a FIFO, a socket) is refused: the
///   atomic rename would replace the node itself (`--out /dev/null` as root would replace the
///   system's /dev/null) — `io` "not a regular file" (exit 73);
/// - an output that is a folder, or whose parent folder is missing, is refused naming the path
///   (exit 73);
/// - an output that is the input (same device and inode, or the same resolved path) is refused
///   as a usage error (`invalid_argument`, exit 64): `--out b.spz` must not overwrite the scene.
public enum OutputPreflight {
    /// Checks the files `files` and the folders `folders` (which may not exist yet: they are
    /// made, with their parents) against `input` (nil: the outputs of no one input, e.g. a
    /// batch report).
    public static func check(files: [String], folders: [String] = [], input: SceneInput?) throws(SplatError) {
        let inputPath: String? = if case .path(let p)? = input { p } else { nil }
        let inputStatus = inputPath.flatMap { FileIO.status(atPath: $0) }
        for path in files {
            try checkFile(path, inputPath: inputPath, inputStatus: inputStatus)
        }
        for folder in folders {
            if let status = FileIO.status(atPath: folder), status.kind != .directory {
                throw SplatError(.io, "the output folder \(folder) exists and is not a folder", file: folder)
            }
        }
    }

    private static func checkFile(_ path: String, inputPath: String?, inputStatus: FileStatus?) throws(SplatError) {
        if let existing = FileIO.status(atPath: path) {
            if let inputStatus, existing.isSameFile(as: inputStatus) {
                throw SplatError(.invalidArgument, "the output \(path) is the input; refusing to overwrite it", file: path, field: "out")
            }
            switch existing.kind {
            case .regular: break
            case .directory: throw SplatError(.io, "the output \(path) is a folder", file: path)
            default: throw SplatError(.io, "the output \(path) exists and is not a regular file (a \(existing.kind.rawValue)); refusing to replace it", file: path)
            }
        } else if let inputPath, resolved(path) == resolved(inputPath) {
            throw SplatError(.invalidArgument, "the output \(path) is the input; refusing to overwrite it", file: path, field: "out")
        }
        let parent = (path as NSString).deletingLastPathComponent
        let folder = parent.isEmpty ? "." : parent
        guard let status = FileIO.status(atPath: folder) else {
            throw SplatError(.io, "the folder \(folder) for the output \(path) does not exist", file: path)
        }
        guard status.kind == .directory else {
            throw SplatError(.io, "\(folder), the folder for the output \(path), is not a folder", file: path)
        }
    }

    /// The absolute, standardised form of `path` (links in the folders resolved).
    public static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
