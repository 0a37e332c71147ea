import SplatCore

/// One splat primitive, validated but not read (`formats-gltf.md` 12.1, 12.2, 14): its extension
/// properties (with the fallback rules for unknown kernels and colour spaces), its attribute
/// table under current and early-draft names, its SH degree, and where its values come from —
/// accessors, or an SPZ payload whose header has been checked.
struct GLTFSplatPrimitive {
    static let baseExtension = "KHR_gaussian_splatting"
    static let legacySPZExtension = "KHR_spz_gaussian_splats_compression"
    static let nestedSPZExtensions = ["KHR_gaussian_splatting_compression_spz_2", "KHR_gaussian_splatting_compression_spz"]
    static let prefix = "KHR_gaussian_splatting:"

    /// The accessors of an uncompressed primitive, validated and type-checked.
    struct Attributes {
        var position: GLTFAccessor
        var rotation: GLTFAccessor
        var scale: GLTFAccessor
        /// The name SCALE was found under (`_SCALE` decides linear, 12.3 rule 2).
        var scaleName: String
        var opacity: GLTFAccessor?
        var sh0: GLTFAccessor?
        var color: GLTFAccessor?
        /// SH coefficient accessors for k = 0..<dim(degree), in k order.
        var sh: [GLTFAccessor]
    }

    /// The SPZ payload of a compressed primitive.
    struct Payload {
        var extensionName: String
        var view: GLTFAccessor.View
        var header: SceneHeader
    }

    enum Source {
        case accessors(Attributes)
        case spz(Payload)
    }

    var mesh: Int
    var primitive: Int
    var kernel: String
    var colorSpace: String
    var projection: String
    var sortingMethod: String
    var attributeNames: [String]
    var source: Source
    var count: Int
    /// SH degree of the values (the payload's for SPZ), 0...4.
    var shDegree: Int
    var quantizedPositionScale: Double?

    var label: String { "meshes[\(mesh)].primitives[\(primitive)]" }
    /// The colour space the renderer uses: unknown values fall back to sRGB (12.1).
    var effectiveColorSpace: String { colorSpace == "lin_rec709_display" ? colorSpace : "srgb_rec709_display" }

    /// The primitive as a splat primitive, or nil when it carries neither splat extension.
    init?(mesh: Int, primitive: Int, _ json: [String: JSONValue], table: GLTFAccessorTable, document: GLTFDocument,
          limits: DecodeLimits, warnings: inout [String]) throws(SplatError) {
        let fields = document.fields
        let at = "meshes[\(mesh)].primitives[\(primitive)]"
        let extensions = try fields.optionalObject(json["extensions"], "\(at).extensions")
        guard extensions[Self.baseExtension] != nil || extensions[Self.legacySPZExtension] != nil else { return nil }
        self.mesh = mesh
        self.primitive = primitive
        let gs = try fields.optionalObject(extensions[Self.baseExtension], "\(at).extensions.\(Self.baseExtension)")
        func text(_ v: JSONValue) -> String { v.stringValue ?? "\(v)" }
        kernel = gs["kernel"].map(text) ?? "ellipse"
        if gs["kernel"] == nil { warnings.append("\(at): no kernel (early draft); using ellipse") }
        else if kernel != "ellipse" { warnings.append("\(at): unknown kernel \"\(kernel)\"; rendered as ellipse") }
        colorSpace = gs["colorSpace"].map(text) ?? "srgb_rec709_display"
        if gs["colorSpace"] == nil { warnings.append("\(at): no colorSpace (early draft); using srgb_rec709_display") }
        else if !["srgb_rec709_display", "lin_rec709_display"].contains(colorSpace) {
            warnings.append("\(at): unknown colorSpace \"\(colorSpace)\"; treated as srgb_rec709_display")
        }
        projection = gs["projection"].map(text) ?? "perspective"
        if projection != "perspective" { warnings.append("\(at): unknown projection \"\(projection)\"; rendered with perspective") }
        sortingMethod = gs["sortingMethod"].map(text) ?? "cameraDistance"
        if sortingMethod != "cameraDistance" { warnings.append("\(at): unknown sortingMethod \"\(sortingMethod)\"; cameraDistance used") }
        let nested = try fields.optionalObject(gs["extensions"], "\(at).\(Self.baseExtension).extensions")
        var spz: (name: String, object: [String: JSONValue])?
        if let name = Self.nestedSPZExtensions.first(where: { nested[$0] != nil }) {
            spz = (name, try fields.object(nested[name], name))
        } else if let legacy = extensions[Self.legacySPZExtension] {
            spz = (Self.legacySPZExtension, try fields.object(legacy, Self.legacySPZExtension))
        }
        for name in nested.keys.sorted() where !Self.nestedSPZExtensions.contains(name) {
            warnings.append("\(at): nested extension \(name) not supported; ignored")
        }
        if json["mode"]?.integerValue != 0 {
            warnings.append("\(at): mode \(json["mode"].map { "\($0)" } ?? "4 (default)") is not POINTS (0); decoded as splats anyway")
        }
        if json["indices"] != nil { throw SplatError(.unsupported, "\(at): indexed splat primitive", file: fields.file, field: "\(at).indices") }
        if let targets = json["targets"]?.arrayValue, !targets.isEmpty { warnings.append("\(at): morph targets ignored") }
        let attributes = try fields.object(json["attributes"], "\(at).attributes")
        attributeNames = attributes.keys.sorted()
        if let q = gs["quantizedPositionScale"] {
            quantizedPositionScale = try fields.number(q, "\(at).quantizedPositionScale")
            warnings.append("\(at): early-draft quantizedPositionScale \(quantizedPositionScale!) applied to POSITION")
        }

        let names = GLTFAttributeNames(attributes, at: at, warnings: &warnings)
        if let spz {
            let payload = try Self.payload(spz, names: names, table: table, at: at, limits: limits, warnings: &warnings)
            source = .spz(payload)
            count = payload.header.count
            shDegree = payload.header.shDegree
        } else {
            let plain = try Self.attributes(names, table: table, document: document, at: at, warnings: &warnings)
            source = .accessors(plain)
            count = plain.position.count
            shDegree = names.degree
        }
    }

    /// Validates the accessors of an uncompressed primitive, in `splat_ref.py`'s order.
    private static func attributes(_ names: GLTFAttributeNames, table: GLTFAccessorTable, document: GLTFDocument, at: String,
                                   warnings: inout [String]) throws(SplatError) -> Attributes {
        let fields = document.fields
        var found: [String: GLTFAccessor] = [:]
        for (key, name, index) in names.ordered(upTo: names.degree) {
            let accessor = try table.accessor(index, semantic: name, warnings: &warnings)
            if accessor.isPlaceholder {
                guard key == "COLOR_0" else {
                    throw fields.failure("\(at).attributes.\(name)", "has no bufferView or sparse data and no compression extension supplies it")
                }
                continue
            }
            found[key] = accessor
        }
        for key in ["POSITION", "ROTATION", "SCALE"] where found[key] == nil {
            throw fields.failure("\(at).attributes", "lacks the required attribute \(key)")
        }
        let count = found["POSITION"]!.count
        for key in found.keys.sorted() where found[key]!.count != count {
            throw fields.failure("\(at).attributes", "\(key) has \(found[key]!.count) elements, POSITION \(count)")
        }
        for (key, accessor) in found.sorted(by: { $0.key < $1.key }) {
            let rule = GLTFAttributeTypes.rule(for: key)
            guard rule.allows(accessor) else {
                throw fields.failure("\(at).attributes.\(names.name(of: key) ?? key)", "accessor \(accessor.describedType) is not allowed")
            }
        }
        if found["POSITION"]!.componentType != .float, !document.extensionsUsed.contains("KHR_mesh_quantization") {
            warnings.append("\(at): integer POSITION without KHR_mesh_quantization in extensionsUsed")
        }
        guard found["OPACITY"] != nil || found["COLOR_0"] != nil else {
            throw fields.failure("\(at).attributes", "has no OPACITY and no COLOR_0 alpha")
        }
        guard found["DC"] != nil || found["COLOR_0"] != nil else {
            throw fields.failure("\(at).attributes", "has no SH_DEGREE_0_COEF_0 and no COLOR_0")
        }
        if !found["POSITION"]!.hasBounds { warnings.append("\(at): POSITION accessor has no min/max") }
        let sh = (0..<SplatScene.shCoefficientCount(degree: names.degree)).map { found["SH\($0)"]! }
        return Attributes(position: found["POSITION"]!, rotation: found["ROTATION"]!, scale: found["SCALE"]!,
                          scaleName: names.name(of: "SCALE")!, opacity: found["OPACITY"], sh0: found["DC"],
                          color: found["COLOR_0"], sh: sh)
    }

    /// The SPZ payload's view and header, and the placeholders' counts against it (14.2, 14.3).
    private static func payload(_ spz: (name: String, object: [String: JSONValue]), names: GLTFAttributeNames,
                                table: GLTFAccessorTable, at: String, limits: DecodeLimits,
                                warnings: inout [String]) throws(SplatError) -> Payload {
        let fields = table.fields
        let view = try table.view(spz.object["bufferView"], field: "\(spz.name).bufferView", warnings: &warnings)
        let bytes = try table.buffers.bytes(view.buffer)
        let payload = UnsafeRawBufferPointer(rebasing: bytes[view.offset..<(view.offset + view.length)])
        let header = try SPZDecoder.readHeader(payload, file: fields.file, limits: limits)
        for (_, name, index) in names.ordered(upTo: 3) {
            let i = try fields.index(index, "attribute \(name)", count: table.accessors.count, of: "accessors")
            let accessor = try fields.object(table.accessors[i], "accessors[\(i)]")
            let count = try fields.integer(accessor["count"], "accessors[\(i)].count", minimum: 1)
            guard count == header.count else {
                throw fields.failure("accessors[\(i)].count", "= \(count) for \(name) differs from the SPZ payload's \(header.count) points")
            }
            if accessor["bufferView"] != nil || accessor["sparse"] != nil {
                warnings.append("\(at): \(name) has data of its own; the SPZ payload is used instead")
            }
        }
        if names.degree != header.shDegree {
            warnings.append("\(at): placeholder attributes imply SH degree \(names.degree), the payload has \(header.shDegree); payload used")
        }
        if header.details["container"] == "ngsp-zstd" || header.version == 4 {
            warnings.append("\(at): SPZ v4 payload inside \(spz.name) (the extension names SPZ library 2: file versions 1-3)")
        }
        return Payload(extensionName: spz.name, view: view, header: header)
    }
}
