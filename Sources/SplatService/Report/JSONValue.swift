import SplatCore

/// A JSON document with object keys kept in insertion order, so reports read top-down the same
/// way every run (Foundation's serializer either shuffles keys or sorts them alphabetically).
/// `serialized(pretty: false)` is the stable one-line encoding used for JSON Lines reports.
public indirect enum JSONValue: Sendable, Equatable, Encodable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    /// A Float written with its own shortest representation (0.1, not 0.10000000149011612).
    case float(Float)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    /// The value, or `null` when absent.
    public static func optional<T>(_ value: T?, _ make: (T) -> JSONValue) -> JSONValue {
        value.map(make) ?? .null
    }

    public static func vector(_ v: SIMD3<Double>) -> JSONValue { .array([.double(v.x), .double(v.y), .double(v.z)]) }
    public static func vector(_ v: SIMD3<Float>) -> JSONValue { .array([.float(v.x), .float(v.y), .float(v.z)]) }

    /// Text with two-space indentation (or on one line), ending without a newline.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    private func write(into out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        // Swift prints whole numbers as "2.0" and tiny ones as "1e-05": both valid JSON.
        case .double(let d): out += d.isFinite ? d.description : "null"
        case .float(let f): out += f.isFinite ? f.description : "null"
        case .string(let s): JSONString.append(s, to: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            // Short arrays of scalars (vectors) stay on one line.
            let inline = indent == nil || (items.count <= 4 && items.allSatisfy(\.isScalar))
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += inline ? (indent == nil ? "," : ", ") : "," }
                if !inline, let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(into: &out, indent: indent.map { $0 + 1 })
            }
            if !inline, let indent { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out += "," }
                if let indent { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSONString.append(key, to: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent.map { $0 + 1 })
            }
            if let indent { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// Encodes through any `Encoder` (e.g. `JSONEncoder`); key order then follows that encoder.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .int(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .double(let d):
            var c = encoder.singleValueContainer()
            if d.isFinite { try c.encode(d) } else { try c.encodeNil() }
        case .float(let f):
            var c = encoder.singleValueContainer()
            if f.isFinite { try c.encode(f) } else { try c.encodeNil() }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try c.encode(value, forKey: Key(key)) }
        }
    }

    /// The member named `key` of an object (nil for other values or a missing key).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private var isScalar: Bool {
        switch self {
        case .array, .object: false
        default: true
        }
    }
}
