import SplatCore

/// A glTF file's JSON document with its container facts, checked up to the extensions
/// (`formats-gltf.md` 11.2, 11.3): GLB chunks or `.gltf` text, the size ceiling before parsing,
/// BOM and padding, `asset.version`/`minVersion`, and `extensionsRequired`.
struct GLTFDocument {
    /// Extensions this decoder implements; one required that is not here is `unsupported`.
    static let supportedExtensions: Set<String> = [
        GLTFSplatPrimitive.baseExtension, GLTFSplatPrimitive.legacySPZExtension,
        "KHR_gaussian_splatting_compression_spz_2", "KHR_gaussian_splatting_compression_spz",
        "KHR_mesh_quantization", "KHR_materials_unlit",
    ]

    let root: [String: JSONValue]
    let isGLB: Bool
    let bin: UnsafeRawBufferPointer?
    let fields: GLTFFields
    let asset: [String: JSONValue]
    let extensionsUsed: [String]
    let extensionsRequired: [String]
    var warnings: [String] = []
    /// About what the parsed JSON tree holds for the whole decode (`JSONParser.bytesPerValue` per
    /// value; values are bounded by the separators that start them), for the memory estimate.
    let parsedBytes: Int

    var generator: String? { asset["generator"]?.stringValue }

    init(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) {
        fields = GLTFFields(file: file)
        var json = bytes
        if (bytes.count >= 4 && bytes.loadUnaligned(as: UInt32.self).littleEndian == GLBContainer.magic)
            || (file ?? "").lowercased().hasSuffix(".glb") {
            let glb = try GLBContainer(bytes, file: file, limits: limits)
            isGLB = true
            bin = glb.bin
            json = glb.json
            warnings += glb.warnings
        } else {
            isGLB = false
            bin = nil
            guard bytes.count <= limits.maxMetaJsonBytes else {
                throw SplatError(.tooLarge, "glTF JSON is \(bytes.count) bytes; the limit is \(limits.maxMetaJsonBytes)", file: file)
            }
        }
        parsedBytes = JSONParser.treeBytesBound(json)
        root = try Self.parse(json, file: file, limits: limits, warnings: &warnings)
        asset = try Self.checkAsset(root, fields: fields)
        extensionsUsed = try fields.strings(root["extensionsUsed"], "extensionsUsed")
        extensionsRequired = try fields.strings(root["extensionsRequired"], "extensionsRequired")
        for name in extensionsRequired where !extensionsUsed.contains(name) {
            warnings.append("extensionsRequired entry \(name) is missing from extensionsUsed")
        }
        let unsupported = extensionsRequired.filter { !Self.supportedExtensions.contains($0) }
        guard unsupported.isEmpty else {
            throw SplatError(.unsupported, "required extension(s) not supported: \(unsupported.joined(separator: ", "))",
                             file: file, field: "extensionsRequired")
        }
        for name in extensionsUsed where !Self.supportedExtensions.contains(name) && !extensionsRequired.contains(name) {
            warnings.append("extension \(name) used but not supported; ignored")
        }
    }

    /// BOM skipped, trailing spaces and NULs stripped, then the bounded parse; the top level
    /// must be an object.
    private static func parse(_ raw: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits,
                              warnings: inout [String]) throws(SplatError) -> [String: JSONValue] {
        var start = 0, end = raw.count
        if end >= 3, raw[0] == 0xEF, raw[1] == 0xBB, raw[2] == 0xBF {
            warnings.append("JSON starts with a UTF-8 byte order mark; skipped")
            start = 3
        }
        var sawNUL = false
        while end > start, [0x20, 0x09, 0x0D, 0x0A, 0x00].contains(raw[end - 1]) {
            if raw[end - 1] == 0 { sawNUL = true }
            end -= 1
        }
        if sawNUL { warnings.append("JSON padded with NUL bytes instead of spaces") }
        // The parsed tree is an intermediate: its value count is bounded by the larger ceiling
        // (a small scene limit must not refuse an ordinary glTF).
        let budget = max(limits.maxDecodedBytes, limits.maxMetaJsonBytes) / JSONParser.bytesPerValue
        let value = try JSONParser.parse(UnsafeRawBufferPointer(rebasing: raw[start..<end]), file: file, maxValues: budget)
        guard let object = value.objectValue else {
            throw SplatError(.badMeta, "the glTF JSON's top level is not an object", file: file)
        }
        return object
    }

    /// `asset.version` ("A.B", major 2) and `asset.minVersion` (≤ 2.0).
    private static func checkAsset(_ root: [String: JSONValue], fields: GLTFFields) throws(SplatError) -> [String: JSONValue] {
        guard let asset = root["asset"]?.objectValue, let version = asset["version"] else {
            throw SplatError(.badMeta, "glTF has no asset.version", file: fields.file, field: "asset.version")
        }
        for (key, value) in [("version", version), ("minVersion", asset["minVersion"])] {
            guard let value else { continue }
            guard let text = value.stringValue, let (major, minor) = versionNumbers(text) else {
                throw fields.failure("asset.\(key)", "is not a version string \"A.B\"")
            }
            if key == "version", major != 2 {
                throw SplatError(.unsupportedVersion, "glTF asset.version \(text) is not supported (only 2.x)", file: fields.file, field: "asset.version")
            }
            if key == "minVersion", major > 2 || (major == 2 && minor > 0) {
                throw SplatError(.unsupportedVersion, "glTF asset.minVersion \(text) is above 2.0", file: fields.file, field: "asset.minVersion")
            }
        }
        return asset
    }

    /// "A.B" with decimal numbers without leading zeros (at most nine digits each).
    static func versionNumbers(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        var numbers: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 9, p.allSatisfy({ $0.isASCII && $0.isNumber }), p == "0" || p.first != "0",
                  let n = Int(p) else { return nil }
            numbers.append(n)
        }
        return (numbers[0], numbers[1])
    }

    /// A top-level array (`accessors`, `meshes`, …), empty when missing.
    func array(_ key: String) throws(SplatError) -> [JSONValue] {
        try fields.optionalArray(root[key], key)
    }
}
