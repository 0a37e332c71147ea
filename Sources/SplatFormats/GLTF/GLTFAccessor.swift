import SplatCore

/// One glTF accessor, validated against its buffer view and buffer (`formats-gltf.md` 11.5)
/// without reading any data: component type, element type, count, stride, bounds in 64-bit
/// arithmetic, and the sparse layout. `GLTFAccessorReader` reads it into Float columns.
struct GLTFAccessor: Sendable {
    enum ComponentType: Int, Sendable {
        case byte = 5120, unsignedByte = 5121, short = 5122, unsignedShort = 5123, unsignedInt = 5125, float = 5126

        var size: Int {
            switch self {
            case .byte, .unsignedByte: 1
            case .short, .unsignedShort: 2
            case .unsignedInt, .float: 4
            }
        }

        var isSigned: Bool { self == .byte || self == .short }
    }

    /// A validated `bufferViews[index]`: `offset..<offset + length` lies inside its buffer.
    struct View: Sendable {
        var index: Int
        var buffer: Int
        var offset: Int
        var length: Int
        var stride: Int?
    }

    /// Sparse substitution: `count` indices (tightly packed u8/u16/u32) and as many elements.
    struct Sparse: Sendable {
        var count: Int
        var indices: View
        var indicesOffset: Int
        var indexType: ComponentType
        var values: View
        var valuesOffset: Int
    }

    static let componentsPerType = ["SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16]

    var index: Int
    var componentType: ComponentType
    var type: String
    var components: Int
    var count: Int
    var normalized: Bool
    var view: View?
    var byteOffset: Int
    /// Bytes from one element to the next in the view.
    var stride: Int
    var sparse: Sparse?
    var hasBounds: Bool

    var elementSize: Int { componentType.size * components }
    /// No data of its own: zeros by the core, or values a compression extension supplies.
    var isPlaceholder: Bool { view == nil && sparse == nil }

    /// Bytes this accessor decodes to as Float (what the ceiling is compared with).
    var describedType: String { "\(type) \(componentType.rawValue)\(normalized ? " normalized" : "")" }
}

/// Validates accessors and buffer views of one document, in the order `splat_ref.py` checks them.
struct GLTFAccessorTable {
    let accessors: [JSONValue]
    let views: [JSONValue]
    let buffers: GLTFBuffers
    let fields: GLTFFields
    let limits: DecodeLimits

    /// `accessors[index]` named by attribute `semantic`; alignment problems go to `warnings`.
    func accessor(_ index: JSONValue?, semantic: String, warnings: inout [String]) throws(SplatError) -> GLTFAccessor {
        let i = try fields.index(index, "attribute \(semantic)", count: accessors.count, of: "accessors")
        let name = "accessors[\(i)]"
        let a = try fields.object(accessors[i], name)
        guard let raw = a["componentType"]?.integerValue, let componentType = GLTFAccessor.ComponentType(rawValue: raw) else {
            throw fields.failure("\(name).componentType", "must be 5120, 5121, 5122, 5123, 5125 or 5126")
        }
        guard let type = a["type"]?.stringValue, let components = GLTFAccessor.componentsPerType[type] else {
            throw fields.failure("\(name).type", "must be SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4")
        }
        let count = try fields.integer(a["count"], "\(name).count", minimum: 1)
        var normalized = false
        if let n = a["normalized"] {
            guard let b = n.boolValue else { throw fields.failure("\(name).normalized", "must be a boolean") }
            normalized = b
        }
        if normalized, componentType == .float || componentType == .unsignedInt {
            throw fields.failure("\(name).normalized", "is not valid for componentType \(componentType.rawValue)")
        }
        let elementSize = componentType.size * components
        guard let decoded = CheckedSize.mul(count, elementSize), decoded <= limits.maxDecodedBytes else {
            throw SplatError(.tooLarge, "\(name) holds \(count) elements of \(elementSize) bytes; the limit is \(limits.maxDecodedBytes)", file: fields.file, field: "\(name).count")
        }
        var accessor = GLTFAccessor(index: i, componentType: componentType, type: type, components: components, count: count,
                                    normalized: normalized, view: nil, byteOffset: 0, stride: elementSize, sparse: nil,
                                    hasBounds: a["min"] != nil && a["max"] != nil)
        if let viewIndex = a["bufferView"] {
            let view = try self.view(viewIndex, field: "\(name).bufferView", warnings: &warnings)
            let offset = try fields.integer(a["byteOffset"], "\(name).byteOffset", fallback: 0)
            let stride = view.stride ?? elementSize
            guard stride >= elementSize else {
                throw fields.failure("\(name)", "has byteStride \(stride), less than its element size \(elementSize)")
            }
            // offset + stride·(count − 1) + elementSize ≤ view length, in checked arithmetic.
            guard let span = CheckedSize.mul(stride, count - 1).flatMap({ CheckedSize.add($0, elementSize) }),
                  let end = CheckedSize.add(offset, span), end <= view.length else {
                throw fields.failure(name, "runs past bufferViews[\(view.index)] (\(view.length) bytes)")
            }
            let size = componentType.size
            if offset % size != 0 || (view.offset + offset) % size != 0 || stride % size != 0 {
                warnings.append("\(name) is not aligned to its component size")
            } else if offset % 4 != 0 || stride % 4 != 0 {
                warnings.append("\(name): vertex elements are not 4-byte aligned")
            }
            accessor.view = view
            accessor.byteOffset = offset
            accessor.stride = stride
        }
        if let sparse = a["sparse"] {
            accessor.sparse = try self.sparse(sparse, accessor: accessor, name: name, warnings: &warnings)
        }
        return accessor
    }

    /// `bufferViews[index]`, inside its buffer's declared `byteLength`.
    func view(_ index: JSONValue?, field: String, warnings: inout [String]) throws(SplatError) -> GLTFAccessor.View {
        let vi = try fields.index(index, field, count: views.count, of: "bufferViews")
        let name = "bufferViews[\(vi)]"
        let v = try fields.object(views[vi], name)
        let bi = try fields.index(v["buffer"], "\(name).buffer", count: buffers.count, of: "buffers")
        let offset = try fields.integer(v["byteOffset"], "\(name).byteOffset", fallback: 0)
        let length = try fields.integer(v["byteLength"], "\(name).byteLength", minimum: 1)
        var stride: Int?
        if let s = v["byteStride"] {
            let value = try fields.integer(s, "\(name).byteStride", minimum: 4, maximum: 252)
            if value % 4 != 0 { warnings.append("\(name).byteStride \(value) is not a multiple of 4") }
            stride = value
        }
        let bufferLength = try buffers.byteLength(bi)
        guard let end = CheckedSize.add(offset, length), end <= bufferLength else {
            throw fields.failure(name, "[\(offset), \(offset + length)) runs past buffers[\(bi)] (\(bufferLength) bytes)")
        }
        return GLTFAccessor.View(index: vi, buffer: bi, offset: offset, length: length, stride: stride)
    }

    private func sparse(_ value: JSONValue, accessor: GLTFAccessor, name: String,
                        warnings: inout [String]) throws(SplatError) -> GLTFAccessor.Sparse {
        let s = try fields.object(value, "\(name).sparse")
        let count = try fields.integer(s["count"], "\(name).sparse.count", minimum: 1, maximum: accessor.count)
        let indices = try fields.object(s["indices"], "\(name).sparse.indices")
        guard let raw = indices["componentType"]?.integerValue, let indexType = GLTFAccessor.ComponentType(rawValue: raw),
              [.unsignedByte, .unsignedShort, .unsignedInt].contains(indexType) else {
            throw fields.failure("\(name).sparse.indices.componentType", "must be 5121, 5123 or 5125")
        }
        let indexView = try view(indices["bufferView"], field: "\(name).sparse.indices.bufferView", warnings: &warnings)
        if indexView.stride != nil { warnings.append("\(name).sparse.indices bufferView defines byteStride") }
        let indicesOffset = try fields.integer(indices["byteOffset"], "\(name).sparse.indices.byteOffset", fallback: 0)
        guard let indexEnd = CheckedSize.mul(indexType.size, count).flatMap({ CheckedSize.add($0, indicesOffset) }),
              indexEnd <= indexView.length else {
            throw fields.failure("\(name).sparse.indices", "run past their bufferView")
        }
        let values = try fields.object(s["values"], "\(name).sparse.values")
        let valueView = try view(values["bufferView"], field: "\(name).sparse.values.bufferView", warnings: &warnings)
        let valuesOffset = try fields.integer(values["byteOffset"], "\(name).sparse.values.byteOffset", fallback: 0)
        guard let valueEnd = CheckedSize.mul(accessor.elementSize, count).flatMap({ CheckedSize.add($0, valuesOffset) }),
              valueEnd <= valueView.length else {
            throw fields.failure("\(name).sparse.values", "run past their bufferView")
        }
        return GLTFAccessor.Sparse(count: count, indices: indexView, indicesOffset: indicesOffset, indexType: indexType,
                                   values: valueView, valuesOffset: valuesOffset)
    }
}
