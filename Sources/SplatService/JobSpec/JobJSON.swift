import Foundation
import SplatCore

/// A job document as read, before the schema gives it meaning: JSON values with their types
/// kept apart (a boolean is not the number 1, a whole number keeps its digits), so an option's
/// value can be turned back into the text the command line would have had.
///
/// Reading is bounded: at most `maxBytes` of text and `maxDepth` levels of nesting, checked
/// before the decoder sees the text, so a hostile entry cannot exhaust memory or the stack.
indirect enum JobJSON: Decodable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JobJSON])
    case object([String: JobJSON])

    /// Largest job document: far above any real job (a few hundred bytes), far below memory.
    static let maxBytes = 1 << 20
    /// Deepest nesting: the schema needs three levels (job, outputs, output).
    static let maxDepth = 16

    /// Parses `text`, or throws `bad_job` saying what is wrong with it.
    static func parse(_ text: String) throws(SplatError) -> JobJSON {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else {
            throw SplatError(.badJob, "the job is \(bytes.count) bytes; at most \(maxBytes) are read")
        }
        guard depth(of: bytes) <= maxDepth else {
            throw SplatError(.badJob, "the job nests deeper than \(maxDepth) levels")
        }
        do {
            return try JSONDecoder().decode(JobJSON.self, from: Data(bytes))
        } catch {
            throw SplatError(.badJob, "the job is not valid JSON (\(reason(error)))")
        }
    }

    init(from decoder: any Decoder) throws {
        if var list = try? decoder.unkeyedContainer() {
            var items: [JobJSON] = []
            while !list.isAtEnd { items.append(try list.decode(JobJSON.self)) }
            self = .array(items)
            return
        }
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var members: [String: JobJSON] = [:]
            for key in keyed.allKeys { members[key.stringValue] = try keyed.decode(JobJSON.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let whole = try? single.decode(Int.self) {
            self = .integer(whole)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// What the value is, for messages: "a string", "an object", ….
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The deepest nesting of arrays and objects in `bytes`, brackets inside strings skipped.
    static func depth(of bytes: [UInt8]) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The decoder's complaint without its coding-path noise.
    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
