import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// The attributes a glTF writer emits and their JSON (`formats-gltf.md` 15.1, 15.3): one tightly
/// packed, 4-byte-aligned buffer view per attribute in the plain form, placeholder accessors
/// over one payload view in the SPZ form.
struct GLTFWriteLayout {
    enum Kind {
        case position, rotation, scale, opacity, dc, sh(Int), color
    }

    struct Attribute {
        var name: String
        var kind: Kind
        var type: String
        var componentType: Int
        var normalized: Bool
        var elementSize: Int
    }

    let count: Int
    let degree: Int
    let minimum: SIMD3<Float>
    let maximum: SIMD3<Float>
    let colorSpace: GLTFEncoder.ColorSpace
    let attributes: [Attribute]
    /// Set for the SPZ form: the payload's length (the one buffer view).
    var payloadBytes: Int?

    init(count: Int, degree: Int, minimum: SIMD3<Float>, maximum: SIMD3<Float>, colorSpace: GLTFEncoder.ColorSpace, writesColor: Bool) {
        self.count = count
        self.degree = degree
        self.minimum = minimum
        self.maximum = maximum
        self.colorSpace = colorSpace
        let p = GLTFSplatPrimitive.prefix
        var list = [
            Attribute(name: "POSITION", kind: .position, type: "VEC3", componentType: 5126, normalized: false, elementSize: 12),
            Attribute(name: p + "ROTATION", kind: .rotation, type: "VEC4", componentType: 5126, normalized: false, elementSize: 16),
            Attribute(name: p + "SCALE", kind: .scale, type: "VEC3", componentType: 5126, normalized: false, elementSize: 12),
            Attribute(name: p + "OPACITY", kind: .opacity, type: "SCALAR", componentType: 5126, normalized: false, elementSize: 4),
            Attribute(name: p + "SH_DEGREE_0_COEF_0", kind: .dc, type: "VEC3", componentType: 5126, normalized: false, elementSize: 12),
        ]
        if degree >= 1 {
            for l in 1...degree {
                for n in 0...(2 * l) {
                    list.append(Attribute(name: "\(p)SH_DEGREE_\(l)_COEF_\(n)", kind: .sh(l * l - 1 + n), type: "VEC3",
                                          componentType: 5126, normalized: false, elementSize: 12))
                }
            }
        }
        if writesColor {
            list.append(Attribute(name: "COLOR_0", kind: .color, type: "VEC4", componentType: 5121, normalized: true, elementSize: 4))
        }
        attributes = list
    }

    /// Byte offset of each attribute's view in the plain buffer (every element size is a
    /// multiple of 4, so every view starts aligned).
    var offsets: [Int] {
        var out: [Int] = []
        var at = 0
        for a in attributes {
            out.append(at)
            at += a.elementSize * count
        }
        return out
    }

    /// Bytes of the plain BIN buffer.
    var bufferBytes: Int { attributes.reduce(0) { $0 + $1.elementSize * count } }

    /// Writes the plain BIN buffer (`bufferBytes` at `base`): each attribute's values for the
    /// kept splats, in output order.
    func fillPlain(_ scene: SplatScene, _ selection: GLTFSplatSelection, into base: UnsafeMutableRawPointer, threads: Int?) {
        let offsets = self.offsets
        let dim = scene.shCoefficientsPerChannel
        let c0 = Float(SphericalHarmonics.c0)
        let decodesSRGB = colorSpace == .srgbRec709Display
        do {
            Parallel.forEach(iterations: selection.kept.count, threads: threads) { chunk in
                let indices = selection.kept[chunk], first = selection.starts[chunk]
                for (a, attribute) in attributes.enumerated() {
                    let out = base + offsets[a] + first * attribute.elementSize
                    func floats(_ j: Int) -> UnsafeMutablePointer<Float> {
                        (out + j * attribute.elementSize).assumingMemoryBound(to: Float.self)
                    }
                    switch attribute.kind {
                    case .position:
                        for (j, i) in indices.enumerated() { let p = scene.position(Int(i)); floats(j)[0] = p.x; floats(j)[1] = p.y; floats(j)[2] = p.z }
                    case .rotation:
                        // glTF order (x, y, z, w), normalized in Double; a zero quaternion is the identity.
                        for (j, i) in indices.enumerated() {
                            var q = SIMD4<Double>(scene.rotation(Int(i)))
                            let length = (q * q).sum().squareRoot()
                            q = length > 0 ? q / length : SIMD4(1, 0, 0, 0)
                            floats(j)[0] = Float(q.y); floats(j)[1] = Float(q.z); floats(j)[2] = Float(q.w); floats(j)[3] = Float(q.x)
                        }
                    case .scale:
                        for (j, i) in indices.enumerated() {
                            let s = scene.logScale(Int(i))
                            floats(j)[0] = expf(s.x); floats(j)[1] = expf(s.y); floats(j)[2] = expf(s.z)
                        }
                    case .opacity:
                        for (j, i) in indices.enumerated() { floats(j)[0] = min(1, max(0, scene.alpha[Int(i)])) }
                    case .dc:
                        for (j, i) in indices.enumerated() { let d = scene.dc(Int(i)); floats(j)[0] = d.x; floats(j)[1] = d.y; floats(j)[2] = d.z }
                    case .sh(let k):
                        let sh = scene.sh.baseAddress!
                        for (j, i) in indices.enumerated() {
                            let src = sh + (Int(i) * dim + k) * 3
                            floats(j)[0] = src[0]; floats(j)[1] = src[1]; floats(j)[2] = src[2]
                        }
                    case .color:
                        for (j, i) in indices.enumerated() {
                            let bytes = (out + 4 * j).assumingMemoryBound(to: UInt8.self)
                            let d = scene.dc(Int(i))
                            bytes[0] = Self.colorByte(0.5 + c0 * d.x, decodesSRGB: decodesSRGB)
                            bytes[1] = Self.colorByte(0.5 + c0 * d.y, decodesSRGB: decodesSRGB)
                            bytes[2] = Self.colorByte(0.5 + c0 * d.z, decodesSRGB: decodesSRGB)
                            bytes[3] = UInt8((min(1, max(0, scene.alpha[Int(i)])) * 255).rounded())
                        }
                    }
                }
            }
        }
    }

    /// The README note's COLOR_0 from the base colour `c`: clamped, then linear values, so
    /// display sRGB is decoded first (the EOTF of 12.4).
    static func colorByte(_ colour: Float, decodesSRGB: Bool) -> UInt8 {
        let c = min(1, max(0, colour))
        let linear = decodesSRGB ? (c <= 0.04045 ? c / 12.92 : powf((c + 0.055) / 1.055, 2.4)) : c
        return UInt8((linear * 255).rounded())
    }

    /// The glTF JSON document; `dataURI` holds the buffer for a `.gltf` (nil: the GLB BIN chunk).
    func document(generator: String, dataURI: [UInt8]?) -> [String: Any] {
        let isSPZ = payloadBytes != nil
        let spzName = GLTFSplatPrimitive.nestedSPZExtensions[0]
        let base = GLTFSplatPrimitive.baseExtension
        var accessors: [[String: Any]] = []
        var views: [[String: Any]] = []
        let offsets = self.offsets
        for (a, attribute) in attributes.enumerated() {
            var accessor: [String: Any] = ["componentType": attribute.componentType, "count": count, "type": attribute.type]
            if !isSPZ {
                accessor["bufferView"] = a
                views.append(["buffer": 0, "byteOffset": offsets[a], "byteLength": attribute.elementSize * count, "target": 34962])
            }
            if attribute.normalized { accessor["normalized"] = true }
            if case .position = attribute.kind {
                // Float32 widened to Double prints as the shortest text that reads back as that Float.
                accessor["min"] = [minimum.x, minimum.y, minimum.z].map(Double.init)
                accessor["max"] = [maximum.x, maximum.y, maximum.z].map(Double.init)
            }
            accessors.append(accessor)
        }
        var gs: [String: Any] = ["kernel": "ellipse", "colorSpace": colorSpace.rawValue]
        let byteLength: Int
        if let payloadBytes {
            views = [["buffer": 0, "byteOffset": 0, "byteLength": payloadBytes]]
            gs["extensions"] = [spzName: ["bufferView": 0]]
            byteLength = payloadBytes
        } else {
            byteLength = bufferBytes
        }
        var names: [String: Int] = [:]
        for (a, attribute) in attributes.enumerated() { names[attribute.name] = a }
        let primitive: [String: Any] = ["attributes": names, "mode": 0, "extensions": [base: gs]]
        var buffer: [String: Any] = ["byteLength": byteLength]
        if let dataURI {
            let encoded = dataURI.withUnsafeBytes { Base64.encode($0) }
            buffer["uri"] = "data:application/octet-stream;base64," + String(decoding: encoded, as: UTF8.self)
        }
        let extensions = isSPZ ? [base, spzName] : [base]
        var root: [String: Any] = [
            "asset": ["version": "2.0", "generator": generator],
            "extensionsUsed": extensions,
            "scene": 0, "scenes": [["nodes": [0]]], "nodes": [["mesh": 0]],
            "meshes": [["primitives": [primitive]]],
            "buffers": [buffer], "bufferViews": views, "accessors": accessors,
        ]
        // The plain form has a point-cloud fallback, so it is not required; the SPZ form has none.
        if isSPZ { root["extensionsRequired"] = extensions }
        return root
    }
}
