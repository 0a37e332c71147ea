/// One file a job wrote, as its report lists it.
public struct OutputRecord: Sendable {
    /// What the file is.
    public enum Role: String, Sendable, Codable {
        /// A single rendered view (`render`, a batch thumbnail).
        case image
        /// A folder of turntable frames `frame_NNN.png` (one record for all of them).
        case frames
        case sheet
        case animation
        /// A converted scene file (`convert`).
        case scene
    }

    /// The path written (`-` for standard output; the folder for `frames`).
    public var path: String
    public var role: Role
    /// `png`, `webp`, `ply`, `spz`.
    public var format: String
    /// File size; for `frames`, the sum over the frames.
    public var bytes: Int
    public var width: Int?
    public var height: Int?
    public var channels: Int?
    /// Frame count of `frames` and `animation`.
    public var frames: Int?
    /// Further facts in report order (e.g. `count`, `sh_degree`, `frame` for converted scenes).
    public var extra: [(String, JSONValue)]

    public init(path: String, role: Role, format: String, bytes: Int, width: Int? = nil, height: Int? = nil,
                channels: Int? = nil, frames: Int? = nil, extra: [(String, JSONValue)] = []) {
        self.path = path
        self.role = role
        self.format = format
        self.bytes = bytes
        self.width = width
        self.height = height
        self.channels = channels
        self.frames = frames
        self.extra = extra
    }

    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("path", .string(path)),
            ("role", .string(role.rawValue)),
            ("format", .string(format)),
        ]
        if let width { fields.append(("width", .int(width))) }
        if let height { fields.append(("height", .int(height))) }
        if let channels { fields.append(("channels", .int(channels))) }
        if let frames { fields.append(("frames", .int(frames))) }
        fields.append(("bytes", .int(bytes)))
        return .object(fields + extra)
    }
}
