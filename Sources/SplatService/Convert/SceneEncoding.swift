import SplatCore
import SplatFormats

/// The scene formats `convert` writes, chosen by the output file's extension: the one table from
/// extension to encoder.
public enum SceneEncoding: String, Sendable, CaseIterable {
    case ply
    case spz
    /// glTF 2.0 binary container with `KHR_gaussian_splatting`.
    case glb
    /// glTF 2.0 JSON with the buffer embedded as a data URI.
    case gltf

    /// The encoding an output path's extension names, nil when it names none.
    public init?(path: String) {
        let lower = path.lowercased()
        guard let match = Self.allCases.first(where: { lower.hasSuffix(".\($0.rawValue)") }) else { return nil }
        self = match
    }

    /// The frame readers of this format assume when a file declares none (`formats.md` 7.3,
    /// `formats-gltf.md` 13.1): what `convert` writes by default.
    public var conventionalFrame: CoordinateSystem {
        switch self {
        case .ply: .rdf
        case .spz: .rub
        case .glb, .gltf: .luf
        }
    }

    /// Whether the format records the frame its values are in (SPZ's coordinate-system extension).
    public var recordsFrame: Bool { self == .spz }

    /// How the encoders are asked to write.
    public struct Options: Sendable, Equatable {
        /// SPZ container version (3 or 4); only for `.spz`.
        public var spzVersion: Int?
        /// glTF: plain float accessors, or the SPZ-compressed extension.
        public var gltfCompression: GLTFEncoder.Compression

        public init(spzVersion: Int? = nil, gltfCompression: GLTFEncoder.Compression = .none) {
            self.spzVersion = spzVersion
            self.gltfCompression = gltfCompression
        }
    }

    /// Encodes `scene` (already in the frame to write; SPZ records `scene.declaredFrame` and
    /// `scene.cameraHints`); returns the bytes and the encoder's warnings.
    public func encode(_ scene: SplatScene, options: Options, threads: Int? = nil) throws(SplatError) -> (bytes: [UInt8], warnings: [String]) {
        switch self {
        case .ply:
            return (PLYEncoder.encode(scene), [])
        case .spz:
            var spz = SPZEncoder.Options(version: options.spzVersion ?? 4, declaredFrame: scene.declaredFrame)
            spz.cameraHints = scene.cameraHints
            return (try SPZEncoder.encode(scene, options: spz), [])
        case .glb, .gltf:
            let gltf = GLTFEncoder.Options(container: self == .glb ? .glb : .gltf, compression: options.gltfCompression,
                                           generator: "splatrender \(ProgramInfo.version)")
            let output = try GLTFEncoder.encode(scene, options: gltf, threads: threads)
            return (output.bytes, output.warnings)
        }
    }
}
