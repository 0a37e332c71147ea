#if canImport(Glibc)
import Glibc
#endif

/// What a scene's DC and SH colours are (`formats-gltf.md` 12.4). 3DGS colours are sRGB-encoded
/// display values, blended and written as they are (`rendering.md` 10); only glTF can say its
/// colours are linear light, and then the renderer blends in linear light and encodes the
/// composite with the sRGB transfer function before quantising.
public enum SplatColorSpace: String, Sendable, CaseIterable, Codable {
    case srgbRec709Display = "srgb_rec709_display"
    case linearRec709Display = "lin_rec709_display"

    /// The sRGB OETF (IEC 61966-2-1) of a linear value, clamped to [0, 1] first; NaN gives 0.
    @inline(__always)
    public static func srgbEncoded(_ linear: Float) -> Float {
        let v = linear >= 0 ? min(linear, 1) : 0
        return v <= 0.0031308 ? 12.92 * v : 1.055 * powf(v, 1 / 2.4) - 0.055
    }

    /// The inverse: an sRGB-encoded value (a user's background colour) in linear light.
    @inline(__always)
    public static func srgbDecoded(_ encoded: Float) -> Float {
        encoded <= 0.04045 ? encoded / 12.92 : powf((encoded + 0.055) / 1.055, 2.4)
    }
}
