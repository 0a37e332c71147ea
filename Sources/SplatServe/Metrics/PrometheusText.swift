/// The pieces of the Prometheus text exposition format, version 0.0.4
/// (https://prometheus.io/docs/instrumenting/exposition_formats/): escaping, number formatting
/// and the sample line. Kept in one place so every family writes exactly the same syntax.
enum PrometheusText {
    /// The `Content-Type` of a scrape response.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Whether `name` is a valid metric or label name (`[a-zA-Z_:][a-zA-Z0-9_:]*`; label names
    /// may not contain colons, which `allowColon: false` enforces).
    static func isValidName(_ name: String, allowColon: Bool = true) -> Bool {
        guard let first = name.utf8.first else { return false }
        func letter(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || (allowColon && c == 58) }
        return letter(first) && name.utf8.allSatisfy { letter($0) || ($0 >= 48 && $0 <= 57) }
    }

    /// Text escaped as the exposition format asks: backslash and line feed always, and the
    /// double quote too inside a label value (`quotes`), not in `# HELP` text.
    static func escape(_ text: String, quotes: Bool) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A sample value as Go's `ParseFloat` reads it: whole numbers without a fraction,
    /// `+Inf`, `-Inf` and `NaN` spelled as the format requires.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// `# HELP` and `# TYPE` lines of a family.
    static func header(name: String, help: String, type: String, into out: inout String) {
        out += "# HELP \(name) \(escape(help, quotes: false))\n# TYPE \(name) \(type)\n"
    }

    /// One sample line, `name{a="x",b="y"} value`.
    static func sample(_ name: String, labels: [(String, String)], value: Double, into out: inout String) {
        out += name
        if !labels.isEmpty {
            out += "{"
            for (i, (key, value)) in labels.enumerated() {
                if i > 0 { out += "," }
                out += key + "=\"" + escape(value, quotes: true) + "\""
            }
            out += "}"
        }
        out += " " + format(value) + "\n"
    }
}
