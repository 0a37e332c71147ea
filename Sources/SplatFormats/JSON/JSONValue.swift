import SplatCore

/// A parsed JSON value (RFC 8259). Numbers are kept as Double, which holds every integer glTF
/// and SOG allow (up to 2⁵³) exactly; objects keep the last of duplicate keys (glTF's rule).
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    var isNull: Bool { if case .null = self { true } else { false } }
    var objectValue: [String: JSONValue]? { if case .object(let o) = self { o } else { nil } }
    var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// A finite number.
    var numberValue: Double? { if case .number(let v) = self, v.isFinite { v } else { nil } }

    /// An integer under glTF's JSON rule 5: any number without a fractional part (`100`,
    /// `100.0`, `1e2`), at most 2⁵³ in magnitude.
    var integerValue: Int? {
        guard let v = numberValue, v.rounded(.towardZero) == v, abs(v) <= 9_007_199_254_740_992 else { return nil }
        return Int(v)
    }

    /// The value in a few characters, for messages: integral numbers without a fraction, strings
    /// quoted (and made printable), arrays and objects by their type.
    var brief: String {
        switch self {
        case .null: "null"
        case .bool(let b): String(b)
        case .number(let v): v.rounded(.towardZero) == v && abs(v) < 1e15 ? String(Int64(v)) : String(v)
        case .string(let s): "\"\(SplatError.printable(s))\""
        case .array, .object: typeName
        }
    }

    /// A short description of the value's JSON type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
