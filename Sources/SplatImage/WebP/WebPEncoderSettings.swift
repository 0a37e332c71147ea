import CWebP
import SplatCore

/// How a WebP writer compresses pixels.
public enum WebPCompression: Sendable, Equatable {
    /// Exact pixels (RGB under fully transparent alpha too).
    case lossless
    /// VP8 with the given quality, 0 (smallest) … 100 (best); alpha stays lossless.
    case lossy(quality: Double)
}

/// The libwebp encoder settings and picture import shared by the animated and still writers.
enum WebPEncoderSettings {
    /// A validated `WebPConfig` for lossless (exact) or lossy output at the given effort.
    static func make(compression: WebPCompression, effort: Int) throws(SplatError) -> WebPConfig {
        guard (0...6).contains(effort) else {
            throw SplatError(.invalidArgument, "WebP effort \(effort) is outside 0…6", field: "effort")
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw SplatError(.io, "libwebp rejected its own ABI version (mismatched headers and library)")
        }
        config.method = Int32(effort)
        switch compression {
        case .lossless:
            config.lossless = 1
            // For lossless, quality is the compression effort; keep it in step with `method`.
            config.quality = Float(effort) * 100 / 6
            // Keep RGB under alpha 0, so a round trip gives back exactly the pixels given.
            config.exact = 1
        case .lossy(let quality):
            guard quality.isFinite, (0...100).contains(quality) else {
                throw SplatError(.invalidArgument, "WebP quality \(quality) is outside 0…100", field: "quality")
            }
            config.lossless = 0
            config.quality = Float(quality)
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw SplatError(.invalidArgument, "libwebp rejected the encoder settings (effort \(effort), \(compression))")
        }
        return config
    }

    /// A `WebPPicture` holding a copy of `image`; the caller frees it with `WebPPictureFree`.
    /// `argb` keeps the pixels as ARGB (needed for exact lossless); otherwise libwebp converts to YUVA.
    static func picture(from image: ImageBuffer, argb: Bool) throws(SplatError) -> WebPPicture {
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw SplatError(.io, "libwebp rejected its own ABI version (mismatched headers and library)")
        }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = argb ? 1 : 0
        let stride = Int32(image.width * image.channels)
        let imported = image.pixels.withUnsafeBufferPointer { pixels -> Int32 in
            image.hasAlpha
                ? WebPPictureImportRGBA(&picture, pixels.baseAddress, stride)
                : WebPPictureImportRGB(&picture, pixels.baseAddress, stride)
        }
        guard imported != 0 else {
            WebPPictureFree(&picture)
            throw SplatError(.io, "libwebp could not take a \(image.width)×\(image.height) picture (out of memory)")
        }
        return picture
    }

    /// Lets `cancellation` stop libwebp mid-encode: libwebp calls the picture's progress hook
    /// as it goes (per row of macroblocks for lossy, between passes for lossless), and a hook
    /// that returns 0 makes the encode fail with `VP8_ENC_ERROR_USER_ABORT`. The token must
    /// outlive the encode; the caller keeps it. `.none` adds no hook.
    static func attach(_ cancellation: CancellationToken, to picture: inout WebPPicture) {
        guard cancellation !== CancellationToken.none else { return }
        picture.user_data = Unmanaged.passUnretained(cancellation).toOpaque()
        picture.progress_hook = { _, picture in
            guard let context = picture?.pointee.user_data else { return 1 }
            return Unmanaged<CancellationToken>.fromOpaque(context).takeUnretainedValue().isCancelled ? 0 : 1
        }
    }
}
