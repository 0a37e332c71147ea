import SplatCore

/// A strict, bounded RFC 8259 parser for the JSON inside scenes — glTF (`formats-gltf.md` 11.3)
/// and SOG `meta.json` (`formats.md` 5.2): UTF-8 validated,
/// no NaN/Infinity literals, nesting at most `maxDepth` containers (so the recursion is bounded),
/// and at most `maxValues` values, checked as they are made, so a hostile file cannot make the
/// parsed tree cost more memory than the caller allowed. Failures are `bad_meta` with the byte
/// offset; too many values is `too_large`.
struct JSONParser {
    /// Memory one parsed value may take (the enum, its slot in an array or dictionary, hashing
    /// overhead), rounded up; used to turn a byte budget into a value budget.
    static let bytesPerValue = 96

    /// The most values `bytes` can hold: every value but the first follows a comma, a colon or
    /// an opening bracket, so their count bounds the values without parsing anything.
    static func valueBound(_ bytes: UnsafeRawBufferPointer) -> Int {
        var separators = 0
        for byte in bytes where byte == 0x2C || byte == 0x3A || byte == 0x5B || byte == 0x7B { separators += 1 }
        return separators + 1
    }

    /// About what the parsed tree of `bytes` can hold at most (`valueBound` × `bytesPerValue`),
    /// for a job's memory estimate, known before the parse starts.
    static func treeBytesBound(_ bytes: UnsafeRawBufferPointer) -> Int {
        CheckedSize.mul(valueBound(bytes), bytesPerValue) ?? Int.max
    }

    private let bytes: UnsafeRawBufferPointer
    private let file: String?
    private let maxDepth: Int
    private var valuesLeft: Int
    private var position = 0

    /// Parses one JSON value filling `bytes` (surrounding whitespace allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String?, maxDepth: Int = 64,
                      maxValues: Int) throws(SplatError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, file: file, maxDepth: maxDepth, valuesLeft: maxValues)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.failure("unexpected bytes after the JSON value") }
        return value
    }

    private init(bytes: UnsafeRawBufferPointer, file: String?, maxDepth: Int, valuesLeft: Int) {
        self.bytes = bytes
        self.file = file
        self.maxDepth = maxDepth
        self.valuesLeft = valuesLeft
    }

    private func failure(_ message: String) -> SplatError {
        SplatError(.badMeta, "JSON does not parse: \(message)", file: file, offset: position)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let b = current, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(SplatError) {
        guard current == byte else { throw failure("expected \(what)") }
        position += 1
    }

    private mutating func value(depth: Int) throws(SplatError) -> JSONValue {
        valuesLeft -= 1
        guard valuesLeft >= 0 else {
            throw SplatError(.tooLarge, "the JSON holds more values than the memory limit allows to parse", file: file, offset: position)
        }
        switch current {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let b? where b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39): return .number(try number())
        case nil: throw failure("unexpected end of the JSON")
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(SplatError) {
        let n = word.utf8CodeUnitCount
        guard position + n <= bytes.count else { throw failure("unexpected end of the JSON") }
        for k in 0..<n where bytes[position + k] != word.utf8Start[k] { throw failure("unknown literal") }
        position += n
    }

    private mutating func object(depth: Int) throws(SplatError) -> JSONValue {
        guard depth <= maxDepth else { throw failure("nesting deeper than \(maxDepth) levels") }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") { position += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':' after a key")
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            if current == UInt8(ascii: ",") { position += 1; continue }
            try expect(UInt8(ascii: "}"), "',' or '}' in an object")
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(SplatError) -> JSONValue {
        guard depth <= maxDepth else { throw failure("nesting deeper than \(maxDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") { position += 1; return .array(elements) }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            if current == UInt8(ascii: ",") { position += 1; continue }
            try expect(UInt8(ascii: "]"), "',' or ']' in an array")
            return .array(elements)
        }
    }

    /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, converted by the standard library.
    private mutating func number() throws(SplatError) -> Double {
        let start = position
        func digits(_ p: inout Int) -> Int {
            let s = p
            while p < bytes.count, bytes[p] >= 0x30, bytes[p] <= 0x39 { p += 1 }
            return p - s
        }
        var p = position
        if bytes[p] == UInt8(ascii: "-") { p += 1 }
        guard p < bytes.count, bytes[p] >= 0x30, bytes[p] <= 0x39 else { throw failure("malformed number") }
        if bytes[p] == 0x30 { p += 1 } else { _ = digits(&p) }
        if p < bytes.count, bytes[p] == UInt8(ascii: ".") {
            p += 1
            guard digits(&p) > 0 else { throw failure("malformed number") }
        }
        if p < bytes.count, bytes[p] == UInt8(ascii: "e") || bytes[p] == UInt8(ascii: "E") {
            p += 1
            if p < bytes.count, bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-") { p += 1 }
            guard digits(&p) > 0 else { throw failure("malformed number") }
        }
        position = p
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<p]), as: UTF8.self)
        guard let v = Double(text) else { throw failure("malformed number") }
        return v
    }

    /// A string token; escapes decoded, UTF-8 validated, raw control characters refused.
    private mutating func string() throws(SplatError) -> String {
        position += 1
        let start = position
        var escaped = false
        while true {
            guard let b = current else { throw failure("unterminated string") }
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 { throw failure("control character in a string") }
            if b == UInt8(ascii: "\\") { escaped = true; position += 1 }
            position += 1
        }
        let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<position])
        position += 1
        guard escaped else {
            guard let s = String(validating: raw, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
            return s
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= raw.count else { return nil }
            var v: UInt32 = 0
            for k in 0..<4 {
                let c = raw[at + k]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < raw.count {
            let b = raw[i]
            guard b == UInt8(ascii: "\\") else { out.append(b); i += 1; continue }
            let e = raw[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = hex4(i) else { throw failure("malformed \\u escape") }
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard i + 6 <= raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u"),
                          let low = hex4(i + 2), (0xDC00..<0xE000).contains(low) else {
                        throw failure("unpaired surrogate in a \\u escape")
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                guard let u = Unicode.Scalar(scalar) else { throw failure("unpaired surrogate in a \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default: throw failure("unknown escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
        return s
    }
}
