import Foundation
import SplatCore

/// The library's front door for reading scenes: detects the format from the bytes, reads the
/// header or decodes the whole scene with the given limits, and applies the non-finite rule.
/// Values stay in the file's own frame; use `FrameDecision` to convert.
public enum SplatFile {
    /// Reads only what the header says (count, degree, model, frame facts), without decoding the
    /// body where the format allows. `path` may be `-` (standard input), a `meta.json` or a SOG
    /// folder. `format` overrides detection (needed for `.splat` on standard input).
    public static func readHeader(path: String, format: SplatFormat? = nil,
                                  limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        if let meta = sogMetaPath(path) {
            return try SOGDecoder.readHeader(.directory(metaPath: meta), limits: limits)
        }
        let file = try RegularFile(path: path, maxBytes: limits.inputByteLimit)
        let detected = try detect(file, format: format)
        if detected.format == .ply || detected.format == .compressedPLY {
            // A PLY header is all at the start: the body is never read for it.
            var header = try PLYDecoder.readHeader(file, limits: limits)
            header.warnings = detected.warnings + header.warnings
            return header
        }
        if detected.format == .spz || detected.format == .splat {
            // Their headers sit in the first bytes (SPZ v4 through its TOC): a job that reads the
            // header before it decodes need not read an 80 MB file twice. Anything the prefix
            // cannot settle is left to the whole file, which gives its own answer and error.
            let prefix = try file.readPrefix(min(file.size, prefixHeaderBytes))
            let early = try prefix.withBytes { (bytes) throws(SplatError) in
                try PrefixHeaderReader.read(prefix: bytes, totalBytes: file.size, name: path, format: detected.format, limits: limits)
            }
            if case .header(var header) = early {
                header.warnings = detected.warnings + header.warnings
                return header
            }
        }
        let input = InputBytes(owning: try file.readAll(), name: path)
        return try readHeader(input, detected: detected, limits: limits, folder: folder(of: path))
    }

    /// Bytes read for a header that sits at the start of its file before the whole file is.
    static let prefixHeaderBytes = 64 << 10

    /// Decodes the whole scene at `path` (see `readHeader(path:)` for the accepted paths).
    /// `gltf` carries the glTF-only choices (the `--gltf-scale` override); `sh` where SH goes
    /// (`SHStorage`: only SPZ has codes to keep). `geometryReady`: see `SPZDecoder.decode`
    /// (SPZ v4 calls it while its SH stream inflates; other formats never call it).
    public static func decode(path: String, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                              gltf: GLTFDecoder.Options = GLTFDecoder.Options(),
                              sh: SHStorage = .float32,
                              geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        if let meta = sogMetaPath(path) {
            let decoded = try underCancellation { () throws(SplatError) in
                try SOGDecoder.decode(.directory(metaPath: meta), limits: limits)
            }
            return try finish(adding: [], to: decoded, limits: limits, name: path)
        }
        let file = try RegularFile(path: path, maxBytes: limits.inputByteLimit)
        let detected = try detect(file, format: format)
        if detected.format == .ply {
            // Binary PLY rows are read in slices straight into the scene, never held whole.
            let streamed = try underCancellation { () throws(SplatError) in try PLYDecoder.decode(file, limits: limits) }
            if let streamed { return try finish(adding: detected.warnings, to: streamed, limits: limits, name: path) }
        }
        if detected.format == .spz {
            // SPZ v4 streams are read in slices as they inflate, never held whole.
            let streamed = try underCancellation { () throws(SplatError) in
                try SPZDecoder.decode(file: file, limits: limits, sh: sh, geometryReady: geometryReady)
            }
            if let streamed { return try finish(adding: detected.warnings, to: streamed, limits: limits, name: path) }
        }
        let input = InputBytes(owning: try file.readAll(), name: path)
        return try decode(input, detected: detected, limits: limits, folder: folder(of: path), gltf: gltf, sh: sh,
                          geometryReady: geometryReady)
    }

    /// Reads the header of bytes already in memory. A glTF among them cannot name buffers in
    /// files beside it (there is no folder to look in): such a URI is `bad_meta`.
    public static func readHeader(_ input: InputBytes, format: SplatFormat? = nil,
                                  limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        try readHeader(input, detected: try detect(input, format: format), limits: limits, folder: nil)
    }

    /// Decodes bytes already in memory (see `readHeader(_:)` about glTF buffer files).
    public static func decode(_ input: InputBytes, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                              gltf: GLTFDecoder.Options = GLTFDecoder.Options(),
                              sh: SHStorage = .float32,
                              geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        try decode(input, detected: try detect(input, format: format), limits: limits, folder: nil, gltf: gltf, sh: sh,
                   geometryReady: geometryReady)
    }

    /// `folder`: where a glTF's relative buffer URIs resolve, nil for bytes without a file.
    private static func readHeader(_ input: InputBytes, detected: (format: SplatFormat, warnings: [String]), limits: DecodeLimits,
                                   folder: String?) throws(SplatError) -> SceneHeader {
        let (fmt, warnings) = detected
        let bytes = input.bytes, file = input.name
        var header: SceneHeader
        switch fmt {
        case .spz: header = try SPZDecoder.readHeader(bytes, file: file, limits: limits)
        case .ply: header = try PLYDecoder.readHeader(bytes, file: file, limits: limits)
        case .compressedPLY: header = try CompressedPLYDecoder.readHeader(bytes, file: file, limits: limits)
        case .splat: header = try DotSplatDecoder.readHeader(bytes, file: file, limits: limits)
        case .sog: header = try SOGDecoder.readHeader(.bundle(bytes, name: file), limits: limits)
        case .gltf: header = try GLTFDecoder.readHeader(bytes, file: file, folder: folder, limits: limits)
        case .ksplat: header = try KSplatDecoder.readHeader(bytes, file: file, limits: limits)
        }
        header.warnings = warnings + header.warnings
        return header
    }

    private static func decode(_ input: InputBytes, detected: (format: SplatFormat, warnings: [String]), limits: DecodeLimits,
                               folder: String?, gltf: GLTFDecoder.Options, sh: SHStorage,
                               geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        let (fmt, warnings) = detected
        let bytes = input.bytes, file = input.name
        let decoded = try underCancellation { () throws(SplatError) -> DecodedScene in
            switch fmt {
            case .spz: try SPZDecoder.decode(bytes, file: file, limits: limits, sh: sh, geometryReady: geometryReady)
            case .ply: try PLYDecoder.decode(bytes, file: file, limits: limits)
            case .compressedPLY: try CompressedPLYDecoder.decode(bytes, file: file, limits: limits)
            case .splat: try DotSplatDecoder.decode(bytes, file: file, limits: limits)
            case .sog: try SOGDecoder.decode(.bundle(bytes, name: file), limits: limits)
            case .gltf: try GLTFDecoder.decode(bytes, file: file, folder: folder, limits: limits, options: gltf)
            case .ksplat: try KSplatDecoder.decode(bytes, file: file, limits: limits)
            }
        }
        return try finish(adding: warnings, to: decoded, limits: limits, name: file)
    }

    /// Puts the detection's `warnings` first in the scene's and the header's, then applies the
    /// non-finite rule.
    private static func finish(adding warnings: [String], to decoded: DecodedScene, limits: DecodeLimits,
                               name: String) throws(SplatError) -> DecodedScene {
        var decoded = decoded
        if !warnings.isEmpty {
            decoded.scene.warnings = warnings + decoded.scene.warnings
            var header = decoded.header
            header.warnings = warnings + header.warnings
            let (proven, usable) = (decoded.valuesProvenFinite, decoded.everySplatUsable)
            decoded = DecodedScene(scene: decoded.scene, header: header)
            (decoded.valuesProvenFinite, decoded.everySplatUsable) = (proven, usable)
        }
        try CancellationToken.checkCurrent("while decoding")
        if !decoded.valuesProvenFinite {
            try NonFiniteFilter.apply(to: decoded.scene, strict: limits.strict, file: name)
        }
        try CancellationToken.checkCurrent("while filtering non-finite splats")
        return decoded
    }

    /// Runs a decoder under the job's token (`CancellationToken.current`): when the token stopped
    /// the work, whatever the half-done decode then threw is replaced by the token's own error,
    /// so a deadline always reads as `timeout`, never as the `corrupt` of a half-filled buffer.
    static func underCancellation<T>(_ body: () throws(SplatError) -> T) throws(SplatError) -> T {
        do throws(SplatError) {
            return try body()
        } catch {
            if let token = CancellationToken.current, let reason = token.reason {
                throw token.error(for: reason, at: "while decoding")
            }
            throw error
        }
    }

    private static func detect(_ input: InputBytes, format: SplatFormat?) throws(SplatError) -> (format: SplatFormat, warnings: [String]) {
        if let format { return (format, []) }
        let prefix = UnsafeRawBufferPointer(rebasing: input.bytes[0..<min(input.bytes.count, FormatSniffer.windowBytes)])
        let r = try FormatSniffer.detect(prefix: prefix, name: input.name)
        return (r.format, r.warnings)
    }

    private static func detect(_ file: RegularFile, format: SplatFormat?) throws(SplatError) -> (format: SplatFormat, warnings: [String]) {
        if let format { return (format, []) }
        let r = try file.readPrefix(FormatSniffer.windowBytes).withBytes { (prefix) throws(SplatError) in
            try FormatSniffer.detect(prefix: prefix, name: file.path)
        }
        return (r.format, r.warnings)
    }

    /// The folder a file's relative references resolve against ("." for a bare name).
    private static func folder(of path: String) -> String? {
        guard path != "-" else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// The `meta.json` path when `path` names an unbundled SOG (the file itself or its folder).
    static func sogMetaPath(_ path: String) -> String? {
        guard path != "-" else { return nil }
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            let meta = (path as NSString).appendingPathComponent("meta.json")
            return FileManager.default.fileExists(atPath: meta) ? meta : nil
        }
        let lower = path.lowercased()
        if lower.hasSuffix("meta.json") && !lower.hasSuffix("lod-meta.json") { return path }
        return nil
    }
}
