import SplatCore

/// A splat primitive's attribute table (`formats-gltf.md` 12.2), keyed by model field: current
/// `KHR_gaussian_splatting:` names first, early-draft aliases (`_ROTATION`, `_SCALE`,
/// `_OPACITY`, `_SH_DEGREE_l_COEF_n`) second, and the SH degree as the longest complete prefix
/// of bands. Keys: POSITION, ROTATION, SCALE, OPACITY, DC (SH degree 0), COLOR_0, and SH`k` for coefficient
/// k = l² − 1 + n.
struct GLTFAttributeNames {
    private var entries: [String: (name: String, index: JSONValue)] = [:]
    /// Complete SH bands, 0...3.
    private(set) var degree = 0

    init(_ attributes: [String: JSONValue], at: String, warnings: inout [String]) {
        let p = GLTFSplatPrimitive.prefix
        func pick(_ key: String, _ names: String...) {
            let present = names.filter { attributes[$0] != nil }
            if present.count > 1 { warnings.append("\(at): both \(present[0]) and \(present[1]) present; \(present[0]) used") }
            if let name = present.first { entries[key] = (name, attributes[name]!) }
        }
        pick("POSITION", "POSITION")
        pick("ROTATION", p + "ROTATION", "_ROTATION")
        pick("SCALE", p + "SCALE", "_SCALE")
        pick("OPACITY", p + "OPACITY", "_OPACITY")
        pick("DC", p + "SH_DEGREE_0_COEF_0")
        pick("COLOR_0", "COLOR_0")
        for l in 1...3 {
            for n in 0...(2 * l) { pick("SH\(l * l - 1 + n)", "\(p)SH_DEGREE_\(l)_COEF_\(n)", "_SH_DEGREE_\(l)_COEF_\(n)") }
        }
        func band(_ l: Int) -> [Bool] { (0...(2 * l)).map { entries["SH\(l * l - 1 + $0)"] != nil } }
        for l in 1...3 {
            let have = band(l)
            if have.allSatisfy({ $0 }) { degree = l; continue }
            if have.contains(true) || ((l + 1)...4).contains(where: { $0 <= 3 && band($0).contains(true) }) {
                warnings.append("\(at): SH degree \(l) incomplete or missing below a higher degree; using degree \(degree)")
            }
            break
        }
        if attributes.keys.contains(where: { $0.hasPrefix(p + "SH_DEGREE_4") || $0.hasPrefix("_SH_DEGREE_4") }) {
            warnings.append("\(at): SH degree 4 attributes are not defined by KHR_gaussian_splatting; ignored")
        }
    }

    /// The attribute name a key was found under.
    func name(of key: String) -> String? { entries[key]?.name }

    /// The present attributes in checking order: the model fields, then SH bands up to `maxDegree`.
    func ordered(upTo maxDegree: Int) -> [(key: String, name: String, index: JSONValue)] {
        let keys = ["POSITION", "ROTATION", "SCALE", "OPACITY", "DC", "COLOR_0"]
            + (0..<SplatScene.shCoefficientCount(degree: maxDegree)).map { "SH\($0)" }
        return keys.compactMap { key in entries[key].map { (key, $0.name, $0.index) } }
    }
}

/// Which accessor types each splat attribute may use (`formats-gltf.md` 11.6): the union of the
/// current and January 2026 texts, plus `KHR_mesh_quantization` for POSITION.
struct GLTFAttributeTypes {
    typealias Pair = (type: GLTFAccessor.ComponentType, normalized: Bool)
    var types: Set<String>
    var pairs: [Pair]

    func allows(_ a: GLTFAccessor) -> Bool {
        types.contains(a.type) && pairs.contains { $0.type == a.componentType && $0.normalized == a.normalized }
    }

    private static let float: [Pair] = [(.float, false)]
    private static let anyInteger: [Pair] = [GLTFAccessor.ComponentType.byte, .unsignedByte, .short, .unsignedShort]
        .flatMap { [($0, false), ($0, true)] }

    static func rule(for key: String) -> GLTFAttributeTypes {
        switch key {
        case "POSITION", "SCALE": GLTFAttributeTypes(types: ["VEC3"], pairs: float + anyInteger)
        case "ROTATION": GLTFAttributeTypes(types: ["VEC4"], pairs: float + [(.byte, true), (.short, true)])
        case "OPACITY": GLTFAttributeTypes(types: ["SCALAR"], pairs: float + [(.unsignedByte, true), (.unsignedShort, true)])
        case "COLOR_0": GLTFAttributeTypes(types: ["VEC3", "VEC4"], pairs: float + [(.unsignedByte, true), (.unsignedShort, true)])
        default: GLTFAttributeTypes(types: ["VEC3"], pairs: float) // DC and every SH coefficient
        }
    }
}
