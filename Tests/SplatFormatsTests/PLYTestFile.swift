import Foundation

/// Builds small PLY files in any encoding and type for decoder tests.
struct PLYTestFile {
    enum Encoding: String {
        case ascii
        case littleEndian = "binary_little_endian"
        case bigEndian = "binary_big_endian"
    }

    enum Value {
        case scalar(Double)
        case list([Double])
    }

    struct Property {
        var name: String
        /// Scalar type name as written in the header (any spelling), or the item type of a list.
        var type: String
        /// Count type of a list property.
        var listCount: String?

        init(_ name: String, _ type: String = "float", listCount: String? = nil) {
            self.name = name
            self.type = type
            self.listCount = listCount
        }
    }

    struct Element {
        var name: String
        var properties: [Property]
        var rows: [[Value]]
        /// Count written in the header (defaults to the number of rows).
        var declaredCount: Int?
    }

    var encoding: Encoding = .littleEndian
    var comments: [String] = []
    var elements: [Element] = []
    var lineEnd = "\n"

    /// The header text.
    var header: String {
        var lines = ["ply", "format \(encoding.rawValue) 1.0"]
        lines += comments.map { "comment \($0)" }
        for e in elements {
            lines.append("element \(e.name) \(e.declaredCount ?? e.rows.count)")
            for p in e.properties {
                if let c = p.listCount {
                    lines.append("property list \(c) \(p.type) \(p.name)")
                } else {
                    lines.append("property \(p.type) \(p.name)")
                }
            }
        }
        lines.append("end_header")
        return lines.joined(separator: lineEnd) + lineEnd
    }

    var bytes: [UInt8] {
        var out = Array(header.utf8)
        for e in elements {
            for row in e.rows {
                var tokens: [String] = []
                for (p, value) in zip(e.properties, row) {
                    switch value {
                    case .scalar(let v):
                        append(v, type: p.type, to: &out, tokens: &tokens)
                    case .list(let items):
                        append(Double(items.count), type: p.listCount ?? "uchar", to: &out, tokens: &tokens)
                        for v in items { append(v, type: p.type, to: &out, tokens: &tokens) }
                    }
                }
                if encoding == .ascii { out += Array((tokens.joined(separator: " ") + "\n").utf8) }
            }
        }
        return out
    }

    private func append(_ v: Double, type: String, to out: inout [UInt8], tokens: inout [String]) {
        if encoding == .ascii {
            tokens.append(["float", "float32", "double", "float64"].contains(type) ? "\(v)" : "\(Int64(v))")
            return
        }
        let big = encoding == .bigEndian
        func put<T: FixedWidthInteger>(_ x: T) {
            let ordered = big ? x.bigEndian : x.littleEndian
            withUnsafeBytes(of: ordered) { out += $0 }
        }
        switch type {
        case "char", "int8": put(Int8(v))
        case "uchar", "uint8": put(UInt8(v))
        case "short", "int16": put(Int16(v))
        case "ushort", "uint16": put(UInt16(v))
        case "int", "int32": put(Int32(v))
        case "uint", "uint32": put(UInt32(v))
        case "float", "float32": put(Float(v).bitPattern)
        case "double", "float64": put(v.bitPattern)
        default: fatalError("test builder: unknown type \(type)")
        }
    }

    /// Standard 3DGS property names, `dim` coefficients per channel.
    static func gaussianNames(dim: Int, normals: Bool = true) -> [String] {
        ["x", "y", "z"] + (normals ? ["nx", "ny", "nz"] : []) + ["f_dc_0", "f_dc_1", "f_dc_2"]
            + (0..<(3 * dim)).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    }

    /// A test value for property `name` of row `i` (distinct per property and row; the
    /// quaternion is unit length when i is even, length 2 when odd).
    static func gaussianValue(_ name: String, row i: Int) -> Double {
        let r = Double(i)
        switch name {
        case "x": return 1.5 + r
        case "y": return -2.25 - r
        case "z": return 3 + 0.5 * r
        case "nx", "ny", "nz": return 0
        case "f_dc_0": return 0.5 + 0.125 * r
        case "f_dc_1": return -0.25
        case "f_dc_2": return 1 - 0.25 * r
        case "opacity": return 2 - r
        case "scale_0": return -3
        case "scale_1": return -2.5 + 0.5 * r
        case "scale_2": return -4
        case "rot_0": return i % 2 == 0 ? 0.5 : 2
        case "rot_1": return i % 2 == 0 ? 0.5 : 0
        case "rot_2": return i % 2 == 0 ? -0.5 : 0
        case "rot_3": return i % 2 == 0 ? 0.5 : 0
        default:
            if name.hasPrefix("f_rest_"), let j = Int(name.dropFirst(7)) { return Double(j) * 0.25 + r }
            return 7
        }
    }

    /// A vertex element with the given property names (all `type`) and `count` rows of
    /// `gaussianValue`.
    static func gaussianVertex(names: [String], count: Int, type: String = "float") -> Element {
        Element(name: "vertex", properties: names.map { Property($0, type) },
                rows: (0..<count).map { i in names.map { .scalar(gaussianValue($0, row: i)) } })
    }
}
