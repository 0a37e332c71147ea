import SplatCore

/// Typed reads of glTF JSON properties; every failure is a `bad_meta` naming the property path.
struct GLTFFields {
    let file: String?

    func failure(_ field: String, _ message: String) -> SplatError {
        SplatError(.badMeta, "\(field) \(message)", file: file, field: field)
    }

    func object(_ v: JSONValue?, _ field: String) throws(SplatError) -> [String: JSONValue] {
        guard let v else { throw failure(field, "is missing") }
        guard let o = v.objectValue else { throw failure(field, "must be a JSON object, not \(v.typeName)") }
        return o
    }

    /// An optional object: missing gives an empty one.
    func optionalObject(_ v: JSONValue?, _ field: String) throws(SplatError) -> [String: JSONValue] {
        guard let v else { return [:] }
        return try object(v, field)
    }

    func array(_ v: JSONValue?, _ field: String) throws(SplatError) -> [JSONValue] {
        guard let v else { throw failure(field, "is missing") }
        guard let a = v.arrayValue else { throw failure(field, "must be a JSON array, not \(v.typeName)") }
        return a
    }

    /// An optional array: missing gives an empty one.
    func optionalArray(_ v: JSONValue?, _ field: String) throws(SplatError) -> [JSONValue] {
        guard let v else { return [] }
        return try array(v, field)
    }

    /// An integer in `minimum...maximum`; `fallback` when the property is missing (nil: required).
    func integer(_ v: JSONValue?, _ field: String, minimum: Int = 0, maximum: Int = Int.max,
                 fallback: Int? = nil) throws(SplatError) -> Int {
        guard let v else {
            if let fallback { return fallback }
            throw failure(field, "is missing")
        }
        guard let n = v.integerValue else {
            throw failure(field, v.numberValue != nil ? "must be an integer, not \(v.numberValue!)" : "must be an integer, not \(v.typeName)")
        }
        guard n >= minimum, n <= maximum else { throw failure(field, "= \(n) is out of range") }
        return n
    }

    /// An index into an array of `count` elements.
    func index(_ v: JSONValue?, _ field: String, count: Int, of array: String) throws(SplatError) -> Int {
        let i = try integer(v, field)
        guard i < count else { throw failure(field, "= \(i), but \(array) has \(count) entries") }
        return i
    }

    func number(_ v: JSONValue?, _ field: String) throws(SplatError) -> Double {
        guard let v else { throw failure(field, "is missing") }
        guard let n = v.numberValue else { throw failure(field, "must be a finite number, not \(v.typeName)") }
        return n
    }

    /// Exactly `count` finite numbers, or `fallback` when missing.
    func numbers(_ v: JSONValue?, _ field: String, count: Int, fallback: [Double]) throws(SplatError) -> [Double] {
        guard let v else { return fallback }
        let a = try array(v, field)
        guard a.count == count else { throw failure(field, "must hold \(count) numbers, not \(a.count)") }
        var out: [Double] = []
        out.reserveCapacity(count)
        for (i, e) in a.enumerated() { out.append(try number(e, "\(field)[\(i)]")) }
        return out
    }

    /// A list of strings (extension names), empty when missing.
    func strings(_ v: JSONValue?, _ field: String) throws(SplatError) -> [String] {
        var out: [String] = []
        for (i, e) in try optionalArray(v, field).enumerated() {
            guard let s = e.stringValue else { throw failure("\(field)[\(i)]", "must be a string, not \(e.typeName)") }
            out.append(s)
        }
        return out
    }
}
