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
/// `info` prints this; jobs are admitted from it before anything is decoded.
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
    /// Bytes the decoder holds at its peak besides the input and the decoded scene: packed
    /// streams and payloads inflated aside, decoded images, a parsed `meta.json` — what a job's
    /// memory estimate adds for the decode stage. An upper bound, from the header alone.
    public var decodeScratchBytes: Int = 0
    /// Set when a file input is decoded from slices read as the decode goes, never held whole
    /// (binary PLY): the most bytes of the file held at once. nil: a file input is read whole.
    public var fileSliceBytes: Int?

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

    /// The frame facts the header states (a decoded scene may add a declaration the header
    /// could not see, e.g. legacy SPZ extensions after the data).
    public var frameFacts: FrameFacts { FrameFacts(declared: declaredFrame, conventional: conventionalFrame) }
}
