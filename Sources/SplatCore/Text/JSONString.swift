/// A string as a JSON string literal: quotes, backslash, line feed, carriage return and tab
/// escaped by name, other control characters as `\u00xx`, everything else as it is. The one
/// encoding of run reports (`JSONValue`) and benchmark JSON lines.
public enum JSONString {
    /// Appends `s`, quoted, to `out`.
    public static func append(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// `s`, quoted.
    public static func quoted(_ s: String) -> String {
        var out = ""
        append(s, to: &out)
        return out
    }
}
