import SplatCore

/// The file formats splatrender reads.
public enum SplatFormat: String, Sendable, Codable, CaseIterable {
    case spz
    case ply
    /// PlayCanvas compressed PLY.
    case compressedPLY = "compressed_ply"
    case sog
    /// antimatter15 `.splat`.
    case splat
    /// glTF 2.0 (`.gltf` or `.glb`) with `KHR_gaussian_splatting`, plain or SPZ-compressed.
    case gltf
    /// mkkellogg GaussianSplats3D `.ksplat`.
    case ksplat
}

/// What a file's header says, read without decoding the body where the format allows.
/// `info` prints this; batch mode uses `declaredDecodedBytes` to schedule jobs under the ceiling.
public struct SceneHeader: Sendable, Equatable {
    public var format: SplatFormat
    /// Format version (SPZ 1–4, SOG 1–2, glTF 2), nil where the format has none.
    public var version: Int?
    public var count: Int
    /// SH degree stored in the file (before any `maxShDegree` truncation).
    public var shDegree: Int
    public var model: SplatModel
    public var declaredFrame: CoordinateSystem?
    public var conventionalFrame: CoordinateSystem
    public var cameraHints: CameraHints?
    public var warnings: [String]
    /// Format-specific facts, e.g. "container": "ngsp-zstd", "ply_format": "ascii".
    public var details: [String: String]

    public init(format: SplatFormat, version: Int? = nil, count: Int, shDegree: Int, model: SplatModel = .default,
                declaredFrame: CoordinateSystem? = nil, conventionalFrame: CoordinateSystem,
                cameraHints: CameraHints? = nil, warnings: [String] = [], details: [String: String] = [:]) {
        self.format = format
        self.version = version
        self.count = count
        self.shDegree = shDegree
        self.model = model
        self.declaredFrame = declaredFrame
        self.conventionalFrame = conventionalFrame
        self.cameraHints = cameraHints
        self.warnings = warnings
        self.details = details
    }

    /// Decoded size at the degree `limits` would keep, in checked arithmetic (nil on overflow).
    public func declaredDecodedBytes(limits: DecodeLimits = DecodeLimits()) -> Int? {
        DecodeLimits.decodedBytes(count: count, degree: limits.keptDegree(shDegree))
    }

    /// Whether the decoded scene fits the 768 MiB service ceiling, whatever limit the caller set.
    public func fitsServiceCeiling(limits: DecodeLimits = DecodeLimits()) -> Bool {
        DecodeLimits.fitsServiceCeiling(count: count, degree: limits.keptDegree(shDegree))
    }
}

/// A decoded scene with the header facts it came from.
public struct DecodedScene: Sendable {
    public let scene: SplatScene
    public let header: SceneHeader

    public init(scene: SplatScene, header: SceneHeader) {
        self.scene = scene
        self.header = header
    }
}
