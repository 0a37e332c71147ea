import SplatCore
import SplatFormats

/// The scene formats `convert` writes, chosen by the output file's extension: the one table from
/// extension to encoder.
public enum SceneEncoding: String, Sendable, CaseIterable {
    case ply
    case spz

    /// The encoding an output path's extension names, nil when it names none.
    public init?(path: String) {
        let lower = path.lowercased()
        guard let match = Self.allCases.first(where: { lower.hasSuffix(".\($0.rawValue)") }) else { return nil }
        self = match
    }

    /// The frame readers of this format assume when a file declares none (`formats.md` 7.3).
    public var conventionalFrame: CoordinateSystem {
        switch self {
        case .ply: .rdf
        case .spz: .rub
        }
    }

    /// Encodes `scene`; SPZ records `scene.declaredFrame` and `scene.cameraHints` as extensions.
    public func encode(_ scene: SplatScene, spzVersion: Int?) throws(SplatError) -> [UInt8] {
        switch self {
        case .ply:
            return PLYEncoder.encode(scene)
        case .spz:
            var options = SPZEncoder.Options(version: spzVersion ?? 4, declaredFrame: scene.declaredFrame)
            options.cameraHints = scene.cameraHints
            return try SPZEncoder.encode(scene, options: options)
        }
    }
}
