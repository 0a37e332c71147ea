/// The 16 named coordinate systems of `formats.md` 7.1. Each name gives the directions of
/// +X, +Y, +Z: L/R left/right, U/D up/down, F/B front/back. Raw values are the SPZ
/// coordinate-system extension's enum values.
public enum CoordinateSystem: Int, Sendable, CaseIterable, Codable {
    case ldb = 1, rdb, lub, rub, ldf, rdf, luf, ruf
    case lfd, rfd, lfu, rfu, lbd, rbd, lbu, rbu

    /// The frame the renderer works in: x right, y up, z back (OpenGL).
    public static let render: CoordinateSystem = .rub

    /// The three-letter name, e.g. "RUB".
    public var name: String {
        switch self {
        case .ldb: "LDB"; case .rdb: "RDB"; case .lub: "LUB"; case .rub: "RUB"
        case .ldf: "LDF"; case .rdf: "RDF"; case .luf: "LUF"; case .ruf: "RUF"
        case .lfd: "LFD"; case .rfd: "RFD"; case .lfu: "LFU"; case .rfu: "RFU"
        case .lbd: "LBD"; case .rbd: "RBD"; case .lbu: "LBU"; case .rbu: "RBU"
        }
    }

    /// Parses a name case-insensitively: the 16 letter names plus the common aliases
    /// `ply`/`opencv`/`colmap` (RDF), `opengl`/`threejs` (RUB), `gltf` (LUF), `unity` (RUF),
    /// `blender` (RFU).
    public init?(name: String) {
        let key = name.uppercased()
        let aliases: [String: CoordinateSystem] = [
            "PLY": .rdf, "OPENCV": .rdf, "COLMAP": .rdf, "OPENGL": .rub, "THREEJS": .rub,
            "GLTF": .luf, "UNITY": .ruf, "BLENDER": .rfu,
        ]
        if let alias = aliases[key] { self = alias; return }
        guard let match = CoordinateSystem.allCases.first(where: { $0.name == key }) else { return nil }
        self = match
    }

    /// Directions of this system's +X, +Y, +Z in a fixed world where R = +x, U = +y, B = +z.
    public var axes: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
        let letters = Array(name)
        return (Self.direction(letters[0]), Self.direction(letters[1]), Self.direction(letters[2]))
    }

    /// Whether the axes form a right-handed system.
    public var isRightHanded: Bool {
        let (ax, ay, az) = axes
        let c = SIMD3(ax.y * ay.z - ax.z * ay.y, ax.z * ay.x - ax.x * ay.z, ax.x * ay.y - ax.y * ay.x)
        return (c * az).sum() > 0
    }

    private static func direction(_ letter: Character) -> SIMD3<Float> {
        switch letter {
        case "R": SIMD3(1, 0, 0)
        case "L": SIMD3(-1, 0, 0)
        case "U": SIMD3(0, 1, 0)
        case "D": SIMD3(0, -1, 0)
        case "B": SIMD3(0, 0, 1)
        default: SIMD3(0, 0, -1) // F
        }
    }
}
