/// The kinds of failure every stage reports. Raw values are the names used by
/// `formats.md` section 0.2 and by the JSON reports, so they are part of the API.
public enum SplatErrorKind: String, Sendable, CaseIterable, Codable {
    case truncated
    case badMagic = "bad_magic"
    case unsupportedVersion = "unsupported_version"
    case badHeader = "bad_header"
    case badTOC = "bad_toc"
    case corrupt
    case implausibleCount = "implausible_count"
    case tooLarge = "too_large"
    case empty
    case badSize = "bad_size"
    case notGaussian = "not_gaussian"
    case unsupported
    case badMeta = "bad_meta"
    case badTexture = "bad_texture"
    case nonFinite = "non_finite"
    /// The file could not be opened or read at all.
    case io
    /// A caller asked for something impossible (bad option values reaching the library).
    case invalidArgument = "invalid_argument"
    /// A wall-clock deadline (`--timeout`) expired.
    case timeout
    /// SIGINT or SIGTERM stopped the job before it finished.
    case interrupted
    /// The caller withdrew the job (a client disconnected, a server stopped waiting for it).
    case cancelled
    /// A job description that can never succeed as written (a refused URL scheme, a path outside its root).
    case badJob = "bad_job"
    /// The rendered output shows (almost) nothing: its coverage is below the `--min-coverage`
    /// the caller asked for.
    case blank
}

/// One error shape for every stage: what went wrong, where, and what was expected.
public struct SplatError: Error, Sendable, CustomStringConvertible, Equatable {
    public var kind: SplatErrorKind
    /// Human-readable detail, e.g. "stream alphas: uncompressedSize 5, expected 4".
    public var message: String
    /// The file (or archive entry) being read, when known.
    public var file: String?
    /// Byte offset of the failing structure, when it has one.
    public var offset: Int?
    /// Header field or property name that failed, when it has one.
    public var field: String?

    public init(_ kind: SplatErrorKind, _ message: String, file: String? = nil, offset: Int? = nil, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.offset = offset
        self.field = field
    }

    /// The same error, attributed to `file` unless it already names one.
    public func inFile(_ name: String?) -> SplatError {
        var copy = self
        if copy.file == nil { copy.file = name }
        return copy
    }

    public var description: String {
        var text = "\(kind.rawValue): \(Self.printable(message))"
        var location: [String] = []
        if let file { location.append(Self.printable(file)) }
        if let field { location.append("field \(field)") }
        if let offset { location.append("offset \(offset)") }
        if !location.isEmpty { text += " (" + location.joined(separator: ", ") + ")" }
        return text
    }

    /// `text` with control characters (NUL, escape sequences, line breaks from a hostile file
    /// name or header) shown as `\xNN`, so one error is one harmless line on a terminal or in a log.
    public static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                out += "\\x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
