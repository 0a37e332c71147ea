import SplatCore

/// Where the 3DGS values live in a PLY `vertex` element (`formats.md` 3.2): properties are
/// looked up by name, the SH degree comes from the `f_rest_*` count, and a missing `scale_2`
/// with everything else present marks a 2DGS scene.
struct PLYGaussianLayout: Sendable {
    /// Property name per `SplatScene.Column`, in column order; the alpha column holds the
    /// opacity logit until the sigmoid is applied.
    static let columnProperties: [String] = [
        "x", "y", "z",
        "scale_0", "scale_1", "scale_2",
        "rot_0", "rot_1", "rot_2", "rot_3",
        "opacity",
        "f_dc_0", "f_dc_1", "f_dc_2",
    ]

    /// `f_rest_*` count → SH degree.
    static let degreeForRestCount: [Int: Int] = [0: 0, 9: 1, 24: 2, 45: 3, 72: 4]

    let vertexIndex: Int
    let count: Int
    let fileDegree: Int
    let is2DGS: Bool
    /// Vertex property index per column; -1 for the absent `scale_2` of a 2DGS file.
    let columnProperty: [Int]
    /// Vertex property index of `f_rest_j`, j = 0 ..< 3·dim(fileDegree).
    let restProperty: [Int]
    let model: SplatModel
    let warnings: [String]

    /// Non-DC coefficients per channel in the file.
    var fileDim: Int { SplatScene.shCoefficientCount(degree: fileDegree) }

    init(_ header: PLYHeader, file: String?) throws(SplatError) {
        guard let v = header.elementIndex("vertex") else {
            throw SplatError(.notGaussian, "no 'vertex' element: not a Gaussian splat PLY", file: file, field: "vertex")
        }
        let vertex = header.elements[v]
        vertexIndex = v
        count = vertex.count

        // f_rest_0 … f_rest_{n−1}, contiguous from 0, n ∈ {0, 9, 24, 45, 72}.
        var rest: [Int: Int] = [:]
        for (i, p) in vertex.properties.enumerated() where p.name.hasPrefix("f_rest_") {
            let suffix = p.name.dropFirst("f_rest_".count)
            guard let k = Int(suffix), k >= 0, String(k) == suffix else {
                throw SplatError(.badHeader, "property \(p.name) is not f_rest_<index>", file: file, field: p.name)
            }
            rest[k] = i
        }
        for k in 0..<rest.count where rest[k] == nil {
            throw SplatError(.badHeader, "f_rest_* properties have a gap: f_rest_\(k) is missing among \(rest.count)",
                             file: file, field: "f_rest_\(k)")
        }
        guard let degree = Self.degreeForRestCount[rest.count] else {
            throw SplatError(.badHeader, "\(rest.count) f_rest properties is not 0/9/24/45/72", file: file, field: "f_rest")
        }
        fileDegree = degree
        restProperty = (0..<rest.count).compactMap { rest[$0] }

        let required = Self.columnProperties.filter { $0 != "scale_2" }
        let missing = required.filter { vertex.index[$0] == nil }
        guard missing.isEmpty else {
            let found = vertex.properties.prefix(12).map(\.name).joined(separator: " ")
            throw SplatError(.notGaussian,
                             "vertex element lacks \(missing.joined(separator: ", ")) (has: \(found)\(vertex.properties.count > 12 ? " …" : "")): not a Gaussian splat PLY",
                             file: file, field: missing.first)
        }
        is2DGS = vertex.index["scale_2"] == nil
        columnProperty = Self.columnProperties.map { vertex.index[$0] ?? -1 }

        if let list = vertex.properties.first(where: { $0.isList }) {
            throw SplatError(.unsupported, "list property '\(list.name)' in the vertex element", file: file, field: list.name)
        }

        let (commentModel, commentWarnings) = header.modelFromComments()
        model = is2DGS ? .twoDGS : commentModel
        warnings = header.warnings + commentWarnings
    }

    /// True for the common layout: little-endian binary, every vertex property a 4-byte float.
    func isAllFloatLittleEndian(_ header: PLYHeader) -> Bool {
        header.format == .binaryLittleEndian && header.elements[vertexIndex].properties.allSatisfy { $0.type == .float32 && !$0.isList }
    }
}
