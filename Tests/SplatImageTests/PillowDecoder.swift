import Foundation
import Testing
import SplatCore
import TestSupport

/// Decodes image files with Pillow (python3), an implementation independent of the libraries
/// the writers use, so a round trip through it checks the bytes against a second reader.
enum PillowDecoder {
    struct Decoded {
        var width: Int
        var height: Int
        /// Pillow's mode: "RGB", "RGBA", …
        var mode: String
        /// Pillow's `format`: "PNG", "WEBP", "JPEG".
        var format: String
        var pixels: [UInt8]
        /// `info["background"]` of an animated WebP, as Pillow reports it (R, G, B, A).
        var background: [Int]?
        var frameCount: Int

        var image: ImageBuffer? {
            let channels = mode == "RGBA" ? 4 : mode == "RGB" ? 3 : 0
            guard channels != 0 else { return nil }
            return ImageBuffer(width: width, height: height, channels: channels, pixels: pixels)
        }
    }

    static let script = """
    import json, sys
    from PIL import Image
    im = Image.open(sys.argv[1])
    fmt = im.format
    frames = getattr(im, "n_frames", 1)
    bg = im.info.get("background")
    im.load()
    if im.mode not in ("RGB", "RGBA"):
        im = im.convert("RGBA" if "A" in im.mode else "RGB")
    head = {"width": im.width, "height": im.height, "mode": im.mode, "format": fmt, "frames": frames,
            "background": list(bg) if isinstance(bg, tuple) else None}
    sys.stdout.buffer.write(json.dumps(head).encode() + b"\\n" + im.tobytes())
    """

    /// Writes `bytes` to a temporary file and decodes it (the first frame of an animation).
    static func decode(_ bytes: [UInt8], suffix: String) throws -> Decoded {
        let dir = try FileManager.default.url(for: .itemReplacementDirectory, in: .userDomainMask,
                                              appropriateFor: FileManager.default.temporaryDirectory, create: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("image.\(suffix)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try decode(path: path)
    }

    static func decode(path: String) throws -> Decoded {
        let run = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, path])
        let data = run.stdout
        guard run.succeeded, let newline = data.firstIndex(of: 0x0A) else {
            throw SplatError(.io, "Pillow failed on \(path): \(run.stderrText)")
        }
        let head = try #require(try JSONSerialization.jsonObject(with: Data(data[..<newline])) as? [String: Any])
        return Decoded(width: head["width"] as! Int, height: head["height"] as! Int, mode: head["mode"] as! String,
                       format: head["format"] as! String, pixels: [UInt8](data[(newline + 1)...]),
                       background: head["background"] as? [Int], frameCount: head["frames"] as! Int)
    }
}
