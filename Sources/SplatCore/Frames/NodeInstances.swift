/// Node-transform facts of a scene whose file draws its stored splats through a node hierarchy
/// (glTF 2.0, `formats-gltf.md` 12.6): which stored splats make up each mesh, and which meshes
/// are drawn with which global matrices. A decoder reports them beside the stored values;
/// `SceneTransform.flatten` applies them. Splats of a mesh no instance draws are not rendered.
public struct NodeInstances: Sendable, Equatable {
    /// One mesh drawn by one node of the default scene.
    public struct Instance: Sendable, Equatable {
        /// The node's index in the file.
        public var node: Int
        /// The mesh's index in the file (an index into `meshSplats`).
        public var mesh: Int
        /// The node's global matrix G = G_parent · L, column-major as glTF writes matrices: the
        /// element in row r, column c is `matrix[4c + r]`.
        public var matrix: [Double]

        public init(node: Int, mesh: Int, matrix: [Double]) {
            precondition(matrix.count == 16, "a node matrix has 16 elements")
            self.node = node
            self.mesh = mesh
            self.matrix = matrix
        }

        /// Element (row, column) of G.
        public func element(_ row: Int, _ column: Int) -> Double { matrix[4 * column + row] }

        /// Whether G is exactly the identity.
        public var isIdentity: Bool {
            (0..<16).allSatisfy { matrix[$0] == ($0 % 5 == 0 ? 1 : 0) }
        }
    }

    /// The stored splats of each mesh, in file order of meshes: `meshSplats[m]` is mesh m's range
    /// (empty for a mesh without splat primitives). Ranges are contiguous and ascending.
    public var meshSplats: [Range<Int>]
    /// Instances in the depth-first order of the default scene's node traversal.
    public var instances: [Instance]

    public init(meshSplats: [Range<Int>], instances: [Instance]) {
        self.meshSplats = meshSplats
        self.instances = instances
    }

    /// Splats after flattening (every instance counts its mesh once), nil on overflow.
    public var instancedCount: Int? {
        var total = 0
        for instance in instances where meshSplats.indices.contains(instance.mesh) {
            let (sum, overflow) = total.addingReportingOverflow(meshSplats[instance.mesh].count)
            if overflow { return nil }
            total = sum
        }
        return total
    }

    /// True when flattening would return the stored splats unchanged and in order: every mesh
    /// with splats is drawn exactly once, in mesh order, with the identity matrix.
    public var isTrivial: Bool {
        let drawn = instances.filter { meshSplats.indices.contains($0.mesh) && !meshSplats[$0.mesh].isEmpty }
        let withSplats = meshSplats.indices.filter { !meshSplats[$0].isEmpty }
        return drawn.map(\.mesh) == withSplats && drawn.allSatisfy(\.isIdentity)
    }

    /// Every range bound, sorted and unique (what a compaction of the stored splats must move).
    public var boundaries: [Int] {
        Array(Set(meshSplats.flatMap { [$0.lowerBound, $0.upperBound] })).sorted()
    }

    /// The same facts after the stored splats were compacted: `old[j]` moved to `new[j]`.
    public func remapped(boundaries old: [Int], to new: [Int]) -> NodeInstances {
        var map: [Int: Int] = [:]
        for (o, n) in zip(old, new) { map[o] = n }
        let ranges = meshSplats.map { r in (map[r.lowerBound] ?? r.lowerBound)..<(map[r.upperBound] ?? r.upperBound) }
        return NodeInstances(meshSplats: ranges, instances: instances)
    }
}
