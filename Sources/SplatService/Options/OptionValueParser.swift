import SplatCore
import SplatFormats
import SplatRender

/// Turns one option's text into its typed value, validated against the option's kind. The same
/// rules serve every source of options: the command line, a server's query string and a fleet
/// job's JSON, so a value means the same thing wherever it is written.
public enum OptionValueParser {
    /// Validates one value against its option's kind.
    public static func parse(_ raw: String, for spec: OptionSpec) throws(UsageError) -> OptionValue {
        func bad(_ expected: String) -> UsageError {
            UsageError("invalid value '\(raw)' for --\(spec.name): expected \(expected)")
        }
        switch spec.kind {
        case .flag:
            return .flag
        case .text:
            guard !raw.isEmpty else { throw bad("a non-empty value") }
            return .text(raw)
        case .integer(let range):
            guard let v = Int(raw.trimmingSpaces), range.contains(v) else {
                throw bad("a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return .integer(v)
        case .number(let range):
            guard let v = finiteNumber(raw), range.contains(v) else {
                throw bad("a number from \(formatted(range.lowerBound)) to \(formatted(range.upperBound))")
            }
            return .number(v)
        case .vector3:
            guard let v = triple(raw) else { throw bad("three numbers x,y,z, e.g. -1.5,0.2,3") }
            return .vector(v)
        case .colour:
            guard let v = triple(raw), (0...1).contains(v.x), (0...1).contains(v.y), (0...1).contains(v.z) else {
                throw bad("three numbers r,g,b from 0 to 1, e.g. 1,1,1")
            }
            return .vector(v)
        case .resolution:
            let parts = raw.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
                  (1...RenderSettings.maxDimension).contains(w), (1...RenderSettings.maxDimension).contains(h) else {
                throw bad("WxH with each side from 1 to \(RenderSettings.maxDimension), e.g. 512x512")
            }
            return .resolution(width: w, height: h)
        case .frame:
            guard let frame = CoordinateSystem(name: raw) else {
                throw bad("a frame name: " + CoordinateSystem.allCases.map(\.name).joined(separator: ", ")
                          + " or ply, opencv, colmap, opengl, threejs, gltf, unity, blender")
            }
            return .frame(frame)
        case .format:
            let key = raw.lowercased().replacingOccurrences(of: "-", with: "_")
            guard let format = SplatFormat(rawValue: key) else {
                throw bad("a format: " + SplatFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return .format(format)
        case .byteCount:
            guard let bytes = byteCount(raw) else {
                throw bad("a byte count such as 805306368, 768M or 768MiB")
            }
            return .integer(bytes)
        case .choice(let words), .optionalChoice(let words, _):
            let key = raw.lowercased()
            guard words.contains(key) else { throw bad("one of " + words.joined(separator: ", ")) }
            return .choice(key)
        case .numberList(let range):
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
            var values: [Double] = []
            for part in parts {
                guard let v = finiteNumber(part), range.contains(v) else {
                    throw bad("comma-separated numbers from \(formatted(range.lowerBound)) to \(formatted(range.upperBound)), e.g. 10,40")
                }
                values.append(v)
            }
            return .numbers(values)
        }
    }

    static func finiteNumber(_ text: some StringProtocol) -> Double? {
        guard let v = Double(String(text).trimmingSpaces), v.isFinite else { return nil }
        return v
    }

    static func triple(_ raw: String) -> SIMD3<Double>? {
        let parts = raw.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, let x = finiteNumber(parts[0]), let y = finiteNumber(parts[1]),
              let z = finiteNumber(parts[2]) else { return nil }
        return SIMD3(x, y, z)
    }

    /// `805306368`, `768M`, `768MiB`, `1G`: binary multiples; nil when not a non-negative count or on overflow.
    static func byteCount(_ raw: String) -> Int? {
        let text = raw.trimmingSpaces
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let base = Int(digits) else { return nil }
        let shift: Int
        switch text.dropFirst(digits.count).lowercased() {
        case "", "b": shift = 0
        case "k", "kib", "kb": shift = 10
        case "m", "mib", "mb": shift = 20
        case "g", "gib", "gb": shift = 30
        case "t", "tib", "tb": shift = 40
        default: return nil
        }
        return CheckedSize.mul(base, 1 << shift)
    }

    static func formatted(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

extension String {
    /// The text without leading and trailing spaces (values like `" 512"` from a shell quote).
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
