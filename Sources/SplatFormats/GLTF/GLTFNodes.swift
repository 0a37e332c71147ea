import SplatCore

/// The default scene's node hierarchy as instances (`formats-gltf.md` 12.6): depth first from
/// the scene's roots, children in array order, each node with a mesh giving (node, mesh, G) with
/// G = G_parent · L. The hierarchy must be a forest (a node is nobody's child twice, not its own
/// child, no root has a parent), at most 256 levels deep.
enum GLTFNodes {
    static let maxDepth = 256

    /// The instances, or nil when the file has no scenes (every mesh is then drawn once with the
    /// identity, with a warning).
    static func instances(_ document: GLTFDocument, meshCount: Int,
                          warnings: inout [String]) throws(SplatError) -> (scene: Int, instances: [NodeInstances.Instance])? {
        let fields = document.fields
        let nodes = try document.array("nodes")
        let scenes = try document.array("scenes")
        var objects: [[String: JSONValue]] = []
        var hasParent = [Bool](repeating: false, count: nodes.count)
        for (i, node) in nodes.enumerated() {
            let object = try fields.object(node, "nodes[\(i)]")
            objects.append(object)
            for child in try fields.optionalArray(object["children"], "nodes[\(i)].children") {
                let c = try fields.index(child, "nodes[\(i)].children", count: nodes.count, of: "nodes")
                guard !hasParent[c], c != i else {
                    throw fields.failure("nodes[\(c)]", "has more than one parent or is its own child")
                }
                hasParent[c] = true
            }
        }
        guard !scenes.isEmpty else {
            warnings.append("no scenes: every mesh is drawn once with the identity transform")
            return nil
        }
        if document.root["scene"] == nil { warnings.append("no default scene; scenes[0] used") }
        let sceneIndex = try fields.index(document.root["scene"] ?? .number(0), "scene", count: scenes.count, of: "scenes")
        let scene = try fields.object(scenes[sceneIndex], "scenes[\(sceneIndex)]")
        var visited = [Bool](repeating: false, count: nodes.count)
        var out: [NodeInstances.Instance] = []

        func visit(_ n: Int, parent: [Double], depth: Int) throws(SplatError) {
            guard !visited[n] else { throw fields.failure("nodes[\(n)]", "is reached twice in the node hierarchy") }
            guard depth <= maxDepth else { throw fields.failure("nodes", "hierarchy is deeper than \(maxDepth) levels") }
            visited[n] = true
            let global = multiply(parent, try localMatrix(objects[n], name: "nodes[\(n)]", fields: fields, warnings: &warnings))
            if let mesh = objects[n]["mesh"] {
                let m = try fields.index(mesh, "nodes[\(n)].mesh", count: meshCount, of: "meshes")
                out.append(NodeInstances.Instance(node: n, mesh: m, matrix: global))
            }
            for child in try fields.optionalArray(objects[n]["children"], "nodes[\(n)].children") {
                try visit(child.integerValue!, parent: global, depth: depth + 1)
            }
        }
        let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        for root in try fields.optionalArray(scene["nodes"], "scenes[\(sceneIndex)].nodes") {
            let r = try fields.index(root, "scenes[\(sceneIndex)].nodes", count: nodes.count, of: "nodes")
            guard !hasParent[r] else { throw fields.failure("scenes[\(sceneIndex)].nodes", "lists nodes[\(r)], which has a parent") }
            try visit(r, parent: identity, depth: 1)
        }
        return (sceneIndex, out)
    }

    /// A node's local matrix, column-major: `matrix`, or T·R·S (rotation x, y, z, w, normalized).
    static func localMatrix(_ node: [String: JSONValue], name: String, fields: GLTFFields,
                            warnings: inout [String]) throws(SplatError) -> [Double] {
        if let matrix = node["matrix"] {
            guard node["translation"] == nil, node["rotation"] == nil, node["scale"] == nil else {
                throw fields.failure(name, "has both matrix and translation/rotation/scale")
            }
            return try fields.numbers(matrix, "\(name).matrix", count: 16, fallback: [])
        }
        let t = try fields.numbers(node["translation"], "\(name).translation", count: 3, fallback: [0, 0, 0])
        let r = try fields.numbers(node["rotation"], "\(name).rotation", count: 4, fallback: [0, 0, 0, 1])
        let s = try fields.numbers(node["scale"], "\(name).scale", count: 3, fallback: [1, 1, 1])
        let length = (r.map { $0 * $0 }.reduce(0, +)).squareRoot()
        guard length > 0 else { throw fields.failure("\(name).rotation", "is a zero quaternion") }
        if abs(length - 1) > 1e-3 { warnings.append("\(name).rotation is not unit length; normalized") }
        let rotation = Matrix3(quaternion: SIMD4(r[3], r[0], r[1], r[2]) / length)
        var m = [Double](repeating: 0, count: 16)
        for c in 0..<3 {
            for row in 0..<3 { m[4 * c + row] = rotation[row, c] * s[c] }
        }
        m[12] = t[0]; m[13] = t[1]; m[14] = t[2]; m[15] = 1
        return m
    }

    /// a · b for column-major 4×4 matrices.
    static func multiply(_ a: [Double], _ b: [Double]) -> [Double] {
        var out = [Double](repeating: 0, count: 16)
        for c in 0..<4 {
            for r in 0..<4 {
                var sum = 0.0
                for k in 0..<4 { sum += a[4 * k + r] * b[4 * c + k] }
                out[4 * c + r] = sum
            }
        }
        return out
    }
}
