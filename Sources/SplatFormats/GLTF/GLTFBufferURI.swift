import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Turns a buffer `uri` that is not a data URI into a file path inside the glTF's folder
/// (`formats-gltf.md` 11.4; the confinement SOG applies to its file names, formats.md 5.1),
/// refusing everything else before the file system is touched: schemes, authorities, queries and
/// fragments are `unsupported` (no network, no `file:`); absolute paths, NUL, `..` segments and
/// paths whose real location (symlinks followed) leaves the folder are `bad_meta`.
enum GLTFBufferURI {
    static func resolve(_ uri: String, folder: String?, field: String, file: String?) throws(SplatError) -> String {
        func refuse(_ kind: SplatErrorKind, _ why: String) -> SplatError {
            SplatError(kind, "\(field) \"\(uri)\" \(why)", file: file, field: field)
        }
        // A scheme is ^[A-Za-z][A-Za-z0-9+.-]*: (http:, file:, and drive letters such as C:).
        let scalars = Array(uri.unicodeScalars)
        if let colon = scalars.firstIndex(of: ":"), colon > 0, isLetter(scalars[0]),
           scalars[1..<colon].allSatisfy({ isLetter($0) || ("0"..."9").contains($0) || "+.-".unicodeScalars.contains($0) }) {
            throw refuse(.unsupported, "has a URI scheme; only paths relative to the glTF's folder are read")
        }
        if uri.hasPrefix("//") { throw refuse(.unsupported, "has a URI authority; only relative paths are read") }
        if uri.contains("?") || uri.contains("#") { throw refuse(.unsupported, "has a query or fragment") }
        guard let path = percentDecoded(uri) else { throw refuse(.badMeta, "percent-decodes to invalid UTF-8") }
        let parts = path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).map(String.init)
        let drive = path.unicodeScalars.count >= 2 && isLetter(path.unicodeScalars.first!) && Array(path.unicodeScalars)[1] == ":"
        if path.hasPrefix("/") || path.hasPrefix("\\") || drive || path.contains("\0") || parts.contains("..") {
            throw refuse(.badMeta, "is absolute or escapes the glTF's folder")
        }
        guard let folder else {
            throw refuse(.badMeta, "names a file beside the glTF, but the input has no folder (bytes from memory or standard input)")
        }
        let base = folder.isEmpty ? "." : folder
        let full = ([base] + parts.filter { !$0.isEmpty && $0 != "." }).joined(separator: "/")
        guard let realBase = realPath(base) else {
            throw SplatError(.truncated, "the glTF's folder \(base) cannot be resolved", file: file, field: field)
        }
        guard let realFile = realPath(full) else {
            throw SplatError(.truncated, "\(field): file \(path) is missing", file: file, field: field)
        }
        let prefix = realBase.hasSuffix("/") ? realBase : realBase + "/"
        guard realFile.hasPrefix(prefix) else { throw refuse(.badMeta, "resolves outside the glTF's folder") }
        var st = stat()
        guard stat(realFile, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw SplatError(.truncated, "\(field): \(path) is not a regular file", file: file, field: field)
        }
        return realFile
    }

    private static func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) }

    /// `%HH` sequences decoded to bytes (others left as they are), then read as UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        let utf8 = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: b - 0x30
            case 0x41...0x46: b - 0x41 + 10
            case 0x61...0x66: b - 0x61 + 10
            default: nil
            }
        }
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count, let h = hex(utf8[i + 1]), let l = hex(utf8[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(utf8[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
