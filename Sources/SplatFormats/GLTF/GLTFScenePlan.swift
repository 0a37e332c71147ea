import Foundation
import SplatCore

/// Everything about a glTF splat scene that can be known without reading accessor data
/// (`formats-gltf.md` 16.1, "order of work"): the document, every splat primitive validated
/// (attribute tables, accessor and view bounds, counts; SPZ payload headers), the stored layout
/// of the splats, the node instances and the frame facts. `readHeader` stops here; `decode`
/// checks the sizes against the limits and only then allocates and reads.
struct GLTFScenePlan {
    let document: GLTFDocument
    let buffers: GLTFBuffers
    let table: GLTFAccessorTable
    let primitives: [GLTFSplatPrimitive]
    /// Where each primitive's splats go in the stored scene.
    let starts: [Int]
    let count: Int
    /// The highest primitive degree (0...4).
    let shDegree: Int
    let meshSplats: [Range<Int>]
    /// Default scene index and instances; nil without scenes (each mesh once, identity).
    let nodes: (scene: Int, instances: [NodeInstances.Instance])?
    let declaredFrame: CoordinateSystem
    var warnings: [String]

    init(_ bytes: UnsafeRawBufferPointer, file: String?, folder: String?, limits: DecodeLimits) throws(SplatError) {
        var document = try GLTFDocument(bytes, file: file, limits: limits)
        let fields = document.fields
        var warnings = document.warnings
        buffers = GLTFBuffers(try document.array("buffers"), bin: document.bin, isGLB: document.isGLB, folder: folder,
                              fields: fields, limits: limits)
        table = GLTFAccessorTable(accessors: try document.array("accessors"), views: try document.array("bufferViews"),
                                  buffers: buffers, fields: fields, limits: limits)
        let meshes = try document.array("meshes")
        var primitives: [GLTFSplatPrimitive] = []
        var starts: [Int] = []
        var meshSplats: [Range<Int>] = []
        var total = 0
        for (m, mesh) in meshes.enumerated() {
            let object = try fields.object(mesh, "meshes[\(m)]")
            let first = total
            for (p, primitive) in try fields.array(object["primitives"], "meshes[\(m)].primitives").enumerated() {
                let json = try fields.object(primitive, "meshes[\(m)].primitives[\(p)]")
                guard let splats = try GLTFSplatPrimitive(mesh: m, primitive: p, json, table: table, document: document,
                                                          limits: limits, warnings: &warnings) else {
                    warnings.append("meshes[\(m)].primitives[\(p)] is not a splat primitive; skipped")
                    continue
                }
                guard let sum = CheckedSize.add(total, splats.count) else {
                    throw SplatError(.tooLarge, "splat primitives overflow a 64-bit count", file: file, field: "meshes")
                }
                primitives.append(splats)
                starts.append(total)
                total = sum
            }
            meshSplats.append(first..<total)
        }
        guard let firstPrimitive = primitives.first else {
            throw SplatError(.notGaussian, "no mesh primitive uses KHR_gaussian_splatting", file: file, field: "meshes")
        }
        let degrees = Set(primitives.map(\.shDegree))
        shDegree = degrees.max() ?? 0
        if degrees.count > 1 { warnings.append("primitives have different SH degrees; lower ones are zero-filled to degree \(shDegree)") }
        let spaces = Set(primitives.map(\.colorSpace))
        if spaces.count > 1 {
            warnings.append("primitives use different colorSpace values \(spaces.sorted()); the first (\(firstPrimitive.colorSpace)) is reported")
        }
        var frame = CoordinateSystem.luf
        if let version = GLTFDecoder.splatTransformVersion(document.generator), version.lexicographicallyPrecedes([2, 0, 0]) {
            frame = .rdf
            warnings.append("splat-transform < 2.0.0 wrote PLY-frame (RDF) data into glTF; declared frame RDF")
        }
        declaredFrame = frame
        nodes = try GLTFNodes.instances(document, meshCount: meshes.count, warnings: &warnings)
        document.warnings = []
        self.document = document
        self.primitives = primitives
        self.starts = starts
        self.meshSplats = meshSplats
        self.warnings = warnings
        count = total
    }

    /// The node facts the scene carries: the file's instances, or each mesh once with the identity.
    var nodeInstances: NodeInstances {
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let instances = nodes?.instances ?? meshSplats.indices.map { NodeInstances.Instance(node: -1, mesh: $0, matrix: identity) }
        return NodeInstances(meshSplats: meshSplats, instances: instances)
    }

    /// The format-neutral header, with the glTF facts `info` shows as details.
    func header(model: SplatModel, warnings: [String], scaleEncodings: [String?]) -> SceneHeader {
        let first = primitives[0]
        var details: [String: String] = [
            "container": document.isGLB ? "glb" : "gltf",
            "asset_version": document.asset["version"]?.stringValue ?? "",
            "extensions_used": document.extensionsUsed.joined(separator: ","),
            "extensions_required": document.extensionsRequired.joined(separator: ","),
            "primitives": String(primitives.count),
            "kernel": first.kernel,
            "color_space": first.colorSpace,
            "render_color_space": first.effectiveColorSpace,
            "projection": first.projection,
            "sorting_method": first.sortingMethod,
        ]
        if let generator = document.generator { details["generator"] = generator }
        var compression: [String] = []
        for (i, p) in primitives.enumerated() {
            var text = "\(p.label): \(p.count) splats, SH \(p.shDegree)"
            switch p.source {
            case .accessors:
                text += ", accessors"
            case .spz(let payload):
                let container = payload.header.details["container"] ?? "spz"
                text += ", \(payload.extensionName) (SPZ v\(payload.header.version ?? 0) \(container), bufferViews[\(payload.view.index)], \(payload.view.length) bytes)"
                if !compression.contains(payload.extensionName) { compression.append(payload.extensionName) }
            }
            if i < scaleEncodings.count, let scale = scaleEncodings[i] { text += ", SCALE \(scale)" }
            details["primitive.\(i)"] = text
            details["primitive.\(i).attributes"] = p.attributeNames.joined(separator: ",")
        }
        details["compression"] = compression.isEmpty ? "none" : compression.joined(separator: ",")
        let facts = nodeInstances
        details["scene"] = nodes.map { String($0.scene) } ?? "none (every mesh once, identity)"
        details["instances"] = String(facts.instances.count)
        details["instanced_count"] = facts.instancedCount.map(String.init) ?? "overflow"
        details["node_transform"] = facts.isTrivial ? "identity" : "applied when flattened"
        for (j, instance) in facts.instances.prefix(8).enumerated() where instance.node >= 0 {
            let matrix = instance.matrix.map { String(format: "%g", $0) }.joined(separator: ",")
            details["instance.\(j)"] = "node \(instance.node), mesh \(instance.mesh), matrix [\(matrix)]"
        }
        return SceneHeader(format: .gltf, version: 2, count: count, shDegree: shDegree, model: model,
                           declaredFrame: declaredFrame, conventionalFrame: .luf, warnings: warnings, details: details)
    }
}
