import SplatCore

/// How a PLY body is encoded (`formats.md` 3.1).
enum PLYFormat: String, Sendable {
    case ascii
    case binaryLittleEndian = "binary_little_endian"
    case binaryBigEndian = "binary_big_endian"
}

/// The eight PLY scalar types; both spellings (`float` / `float32`, …) map to the same case.
enum PLYScalarType: Sendable, Equatable {
    case int8, uint8, int16, uint16, int32, uint32, float32, float64

    init?(name: Substring) {
        switch name {
        case "char", "int8": self = .int8
        case "uchar", "uint8": self = .uint8
        case "short", "int16": self = .int16
        case "ushort", "uint16": self = .uint16
        case "int", "int32": self = .int32
        case "uint", "uint32": self = .uint32
        case "float", "float32": self = .float32
        case "double", "float64": self = .float64
        default: return nil
        }
    }

    var size: Int {
        switch self {
        case .int8, .uint8: 1
        case .int16, .uint16: 2
        case .int32, .uint32, .float32: 4
        case .float64: 8
        }
    }

    var isInteger: Bool { self != .float32 && self != .float64 }
}

/// One `property` line: a scalar, or a list (`countType` set) whose items are of `type`.
struct PLYProperty: Sendable {
    var name: String
    var type: PLYScalarType
    var listCountType: PLYScalarType?

    var isList: Bool { listCountType != nil }
}

/// One `element` line and its properties, in header order.
struct PLYElement: Sendable {
    var name: String
    var count: Int
    var properties: [PLYProperty] = []
    /// Property name → index in `properties`.
    var index: [String: Int] = [:]

    var hasLists: Bool { properties.contains { $0.isList } }

    /// Bytes per binary row, or nil when a list makes rows variable.
    var rowSize: Int? {
        var total = 0
        for p in properties {
            if p.isList { return nil }
            total += p.type.size
        }
        return total
    }

    /// Byte offset of property `i` inside a binary row (rows without lists only).
    func byteOffset(ofProperty i: Int) -> Int {
        var off = 0
        for p in properties[..<i] { off += p.type.size }
        return off
    }

    func property(_ name: String) -> PLYProperty? { index[name].map { properties[$0] } }
}

/// A parsed PLY header (`formats.md` 3.1), shared by the 3DGS and compressed PLY decoders.
/// Parsing reads only the header bytes, never the body.
struct PLYHeader: Sendable {
    var format: PLYFormat
    /// Text of `comment` and `obj_info` lines, without the keyword, in order.
    var comments: [String]
    var elements: [PLYElement]
    /// Offset of the first body byte: just after the `end_header` line's LF.
    var bodyOffset: Int
    var warnings: [String]

    /// Largest element count accepted (`formats.md` 3.1: ≤ 2³¹−1).
    static let maxCount = Int(Int32.max)

    func elementIndex(_ name: String) -> Int? { elements.firstIndex { $0.name == name } }

    /// True when the vertex element carries PlayCanvas packed words (`formats.md` 4).
    var isCompressed: Bool {
        guard let v = elementIndex("vertex") else { return false }
        return elements[v].index["packed_position"] != nil
    }

    /// The model stated by `SplatRenderMode:` or `antialiased` comments (case-insensitive, last
    /// match wins, as Brush and splat-transform do), with warnings for values it cannot read.
    func modelFromComments() -> (model: SplatModel, warnings: [String]) {
        var model = SplatModel.default
        var warnings: [String] = []
        for comment in comments {
            let text = comment.trimmingPLYWhitespace().lowercased()
            if text.hasPrefix("splatrendermode:") {
                let value = text.dropFirst("splatrendermode:".count).trimmingPLYWhitespace()
                switch value {
                case "default": model = .default
                case "mip": model = .antialiased
                case "2dgs": model = .twoDGS
                default: warnings.append("comment SplatRenderMode: unknown value '\(value)' ignored")
                }
            } else if text.hasPrefix("antialiased"),
                      let next = text.dropFirst("antialiased".count).first, next == " " || next == "\t" {
                let value = text.dropFirst("antialiased".count).trimmingPLYWhitespace()
                switch value {
                case "1": model = .antialiased
                case "0": model = .default
                default: warnings.append("comment antialiased: unknown value '\(value)' ignored")
                }
            }
        }
        return (model, warnings)
    }

    /// Parses the header at the start of `bytes`. Errors: no `ply` line → `bad_magic`; no
    /// `end_header` within `limits.maxPlyHeaderBytes`, unknown keyword or type, malformed or
    /// overflowing count, duplicate element or property names → `bad_header`.
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> PLYHeader {
        let limit = min(bytes.count, max(0, limits.maxPlyHeaderBytes))
        var lineStart = 0
        var lineNumber = 0
        var format: PLYFormat?
        var comments: [String] = []
        var elements: [PLYElement] = []
        var elementNames = Set<String>()
        var warnings: [String] = []

        func fail(_ message: String, at offset: Int, field: String? = nil, kind: SplatErrorKind = .badHeader) -> SplatError {
            SplatError(kind, message, file: file, offset: offset, field: field)
        }

        while lineStart < limit {
            // A line ends at LF; the header must end (LF included) within the limit. The
            // `end_header` line alone may also end at the end of the file.
            var lineEnd = lineStart
            while lineEnd < limit && bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let terminated = lineEnd < limit
            if !terminated && lineEnd < bytes.count {
                break  // The line runs past the header limit.
            }
            var contentEnd = lineEnd
            if contentEnd > lineStart && bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<contentEnd])
            let text = String(decoding: line, as: UTF8.self)
            let tokens = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let lineOffset = lineStart
            lineNumber += 1
            let nextLine = terminated ? lineEnd + 1 : lineEnd

            if lineNumber == 1 {
                guard text == "ply" else {
                    throw fail("the first line is not 'ply'", at: 0, kind: .badMagic)
                }
                lineStart = nextLine
                continue
            }
            guard let keyword = tokens.first else {
                lineStart = nextLine
                continue  // Blank lines carry nothing; some writers leave them.
            }
            switch keyword {
            case "format":
                guard format == nil else { throw fail("a second format line", at: lineOffset, field: "format") }
                guard tokens.count == 3 else {
                    throw fail("format line '\(text)': expected 'format <ascii|binary_little_endian|binary_big_endian> 1.0'",
                               at: lineOffset, field: "format")
                }
                guard let f = PLYFormat(rawValue: String(tokens[1])) else {
                    throw fail("unknown format '\(tokens[1])': expected ascii, binary_little_endian or binary_big_endian",
                               at: lineOffset, field: "format")
                }
                if tokens[2] != "1.0" { warnings.append("PLY format version \(tokens[2]) (expected 1.0); reading it as 1.0") }
                format = f
            case "comment", "obj_info":
                var body = text.drop(while: { $0 == " " || $0 == "\t" }).dropFirst(keyword.count)
                if let first = body.first, first == " " || first == "\t" { body = body.dropFirst() }
                comments.append(String(body))
            case "element":
                guard format != nil else { throw fail("element before the format line", at: lineOffset, field: "element") }
                guard tokens.count == 3 else {
                    throw fail("element line '\(text)': expected 'element <name> <count>'", at: lineOffset, field: "element")
                }
                let name = String(tokens[1])
                guard let count = parseCount(tokens[2]) else {
                    // formats.md 8.4: a malformed or overflowing PLY count is a header error.
                    throw fail("element \(name): count '\(tokens[2])' is not a decimal number in 0...\(maxCount)",
                               at: lineOffset, field: "element \(name)")
                }
                guard elementNames.insert(name).inserted else {
                    throw fail("duplicate element '\(name)'", at: lineOffset, field: "element \(name)")
                }
                elements.append(PLYElement(name: name, count: count))
            case "property":
                guard !elements.isEmpty else { throw fail("property before any element", at: lineOffset, field: "property") }
                var property: PLYProperty
                if tokens.count >= 2 && tokens[1] == "list" {
                    guard tokens.count == 5 else {
                        throw fail("property line '\(text)': expected 'property list <countType> <itemType> <name>'",
                                   at: lineOffset, field: "property")
                    }
                    guard let countType = PLYScalarType(name: tokens[2]), countType.isInteger else {
                        throw fail("list count type '\(tokens[2])' is not an integer PLY type", at: lineOffset, field: String(tokens[4]))
                    }
                    guard let itemType = PLYScalarType(name: tokens[3]) else {
                        throw fail("unknown PLY type '\(tokens[3])'", at: lineOffset, field: String(tokens[4]))
                    }
                    property = PLYProperty(name: String(tokens[4]), type: itemType, listCountType: countType)
                } else {
                    guard tokens.count == 3 else {
                        throw fail("property line '\(text)': expected 'property <type> <name>'", at: lineOffset, field: "property")
                    }
                    guard let type = PLYScalarType(name: tokens[1]) else {
                        throw fail("unknown PLY type '\(tokens[1])'", at: lineOffset, field: String(tokens[2]))
                    }
                    property = PLYProperty(name: String(tokens[2]), type: type)
                }
                let e = elements.count - 1
                guard elements[e].index[property.name] == nil else {
                    throw fail("duplicate property '\(property.name)' in element \(elements[e].name)",
                               at: lineOffset, field: property.name)
                }
                elements[e].index[property.name] = elements[e].properties.count
                elements[e].properties.append(property)
            case "end_header":
                guard tokens.count == 1 else { throw fail("end_header line '\(text)' has extra words", at: lineOffset) }
                guard let format else { throw fail("no format line before end_header", at: lineOffset, field: "format") }
                return PLYHeader(format: format, comments: comments, elements: elements,
                                 bodyOffset: nextLine, warnings: warnings)
            default:
                throw fail("unknown header keyword '\(keyword)'", at: lineOffset, field: String(keyword))
            }
            lineStart = nextLine
        }
        if bytes.count < 3 || !(bytes[0] == 0x70 && bytes[1] == 0x6C && bytes[2] == 0x79) {
            throw fail("the first line is not 'ply'", at: 0, kind: .badMagic)
        }
        throw fail("no end_header line within the first \(limit) bytes (header limit \(limits.maxPlyHeaderBytes))", at: lineStart)
    }

    /// A decimal count in 0...2³¹−1, digits only (no sign), or nil.
    static func parseCount(_ token: Substring) -> Int? {
        guard !token.isEmpty else { return nil }
        var value = 0
        for ch in token.utf8 {
            guard ch >= 0x30 && ch <= 0x39 else { return nil }
            value = value * 10 + Int(ch - 0x30)
            if value > maxCount { return nil }
        }
        return value
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    func trimmingPLYWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }) else { return "" }
        let end = lastIndex(where: { !isSpace($0) })!
        return String(self[start...end])
    }
}
