import SplatCore
import SplatFormats

/// Whether a scene's declared decoded size fits the 768 MiB service ceiling and the caller's
/// `maxDecodedBytes`, computed from the header alone (the scene model's bytes per splat at the
/// degree the limits would keep).
public struct CeilingVerdict: Sendable, Equatable {
    /// `count × bytesPerSplat(keptDegree)`, nil when that overflows 64 bits.
    public var declaredDecodedBytes: Int?
    public var keptDegree: Int
    public var maxDecodedBytes: Int
    public var fitsLimit: Bool
    public var fitsServiceCeiling: Bool

    public init(header: SceneHeader, limits: DecodeLimits) {
        keptDegree = limits.keptDegree(header.shDegree)
        declaredDecodedBytes = header.declaredDecodedBytes(limits: limits)
        maxDecodedBytes = limits.maxDecodedBytes
        fitsLimit = declaredDecodedBytes.map { $0 <= limits.maxDecodedBytes } ?? false
        fitsServiceCeiling = header.fitsServiceCeiling(limits: limits)
    }

    /// One line, e.g. "184 bytes (92 per splat at SH degree 1): fits the 768 MiB service ceiling".
    public var summary: String {
        let size = declaredDecodedBytes.map { $0 < 1024 ? "\($0) bytes" : "\($0) bytes (\(Self.mebibytes($0)))" } ?? "more than 2^63 bytes"
        var text = "\(size) at SH degree \(keptDegree): "
        text += fitsServiceCeiling ? "fits" : "EXCEEDS"
        text += " the 768 MiB service ceiling"
        if maxDecodedBytes != DecodeLimits.serviceCeilingBytes {
            text += "; " + (fitsLimit ? "fits" : "EXCEEDS") + " --max-decoded-bytes \(maxDecodedBytes)"
        }
        return text
    }

    /// The report's `ceiling` object.
    public var json: JSONValue {
        .object([
            ("declared_decoded_bytes", .optional(declaredDecodedBytes) { .int($0) }),
            ("bytes_per_splat", .int(SplatScene.bytesPerSplat(degree: keptDegree))),
            ("kept_sh_degree", .int(keptDegree)),
            ("service_ceiling_bytes", .int(DecodeLimits.serviceCeilingBytes)),
            ("fits_service_ceiling", .bool(fitsServiceCeiling)),
            ("max_decoded_bytes", .int(maxDecodedBytes)),
            ("fits_limit", .bool(fitsLimit)),
        ])
    }

    /// "184 bytes", "11.75 MiB", "768 MiB".
    public static func mebibytes(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        let (value, unit): (Double, String) = bytes < 1 << 20 ? (Double(bytes) / 1024, "KiB")
            : bytes < 1 << 30 ? (Double(bytes) / 1_048_576, "MiB") : (Double(bytes) / 1_073_741_824, "GiB")
        let rounded = value >= 100 ? String(Int(value.rounded())) : String((value * 100).rounded() / 100)
        return "\(rounded) \(unit)"
    }
}
