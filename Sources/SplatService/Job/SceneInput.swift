import SplatCore
import SplatFormats

/// Where a scene's bytes come from: a path (a file, a SOG folder or its `meta.json`), or bytes a
/// caller already holds, e.g. standard input read by the command line.
public enum SceneInput: Sendable {
    case path(String)
    /// Bytes in memory; `InputBytes.name` labels errors and reports (`-` for standard input).
    case memory(InputBytes)

    /// Bytes in memory, copied, named `name`.
    public static func bytes(_ bytes: [UInt8], name: String) -> SceneInput {
        .memory(bytes.withUnsafeBytes { InputBytes(copying: $0, name: name) })
    }

    /// The path as given, or the memory input's name.
    public var name: String {
        switch self {
        case .path(let path): path
        case .memory(let input): input.name
        }
    }
}
