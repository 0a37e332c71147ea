import SplatCore
import SplatFormats

/// Where `-` as an input path reads from: a descriptor (standard input in the executable) or
/// fixed bytes (tests). Either way the same rules hold: read once, into the final buffer, refused
/// from the first bytes when not a splat file, capped by the input limit.
public enum InputSource: Sendable {
    case descriptor(Int32)
    case bytes([UInt8])

    /// The process's standard input.
    public static var standardInput: InputSource { .descriptor(0) }

    /// The scene bytes, named `-`.
    func readScene(format: SplatFormat?, limits: DecodeLimits) throws(SplatError) -> InputBytes {
        switch self {
        case .descriptor(let fd):
            return try InputBytes.readStream(fd, name: "-", format: format, limits: limits)
        case .bytes(let bytes):
            let result: Result<InputBytes, SplatError> = bytes.withUnsafeBytes { raw in
                Result { () throws(SplatError) in try InputBytes.checked(raw, name: "-", format: format, limits: limits) }
            }
            return try result.get()
        }
    }

    /// A list of paths (`thumbnails --from-stdin`), at most `maxBytes`.
    func readText(maxBytes: Int) throws(SplatError) -> String {
        switch self {
        case .descriptor(let fd):
            let owned = try FileIO.readStream(fd, name: "-", maxBytes: maxBytes) { (_) throws(SplatError) in }
            return String(decoding: owned.bytes, as: UTF8.self)
        case .bytes(let bytes):
            guard bytes.count <= maxBytes else {
                throw SplatError(.tooLarge, "the list on standard input is longer than \(maxBytes) bytes", file: "-")
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
