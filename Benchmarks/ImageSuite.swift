import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender

/// Image encoding on corpus renders (the CLI's default view, transparent background, RGBA):
/// PNG time against raw libdeflate on the same pixels (the issue's ≤ 1.5× target), PNG size
/// against libpng at its default settings (≤ 1.10×), libpng's time, one-thread PNG, JPEG and
/// WebP times and the three formats' sizes. The full run adds how far past a deadline a
/// 16384² encode runs (`EncodeDeadlineProbe`).
struct ImageSuite {
    let stopwatch: Stopwatch
    let report: Report

    /// A scene and the sides it is rendered at.
    struct Input {
        var scene: String
        var path: String
        var sides: [Int]
    }

    static let pngTimeTarget = 1.5
    static let pngSizeTarget = 1.10

    func run(_ inputs: [Input], full: Bool) throws {
        for input in inputs {
            report.progress("image \(input.path)")
            let images = try Self.render(input.path, sides: input.sides)
            for (side, image) in zip(input.sides, images) {
                try measurePNG(image, scene: input.scene, side: side)
                if input.scene == "biker" { try measureOtherFormats(image, scene: input.scene, side: side) }
            }
        }
        if full {
            try EncodeDeadlineProbe(report: report).run()
        }
    }

    /// Renders `path` once per side with the CLI's default camera on all cores.
    static func render(_ path: String, sides: [Int]) throws -> [ImageBuffer] {
        let scene = try SplatFile.decode(path: path).scene
        FrameDecision.decide(for: scene).apply(to: scene)
        let renderer = Renderer(scene: scene)
        return try sides.map { side in
            let framing = AutoFramer.frame(scene, width: side, height: side, fovYDegrees: RenderSuite.fovYDegrees)
            let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                        elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: RenderSuite.fovYDegrees)
            return try renderer.render(camera: camera, settings: RenderSettings(width: side, height: side)).image
        }
    }

    private func measurePNG(_ image: ImageBuffer, scene: String, side: Int) throws {
        let details: [(String, JSONScalar)] = [("scene", .string(scene)), ("width", .int(side)), ("height", .int(side)),
                                               ("channels", .int(image.channels))]
        let key = "\(scene).\(side)"
        let deflate = try stopwatch.measure { try RawBaselines.deflate(image.pixels, level: 6) }
        let deflateName = "baseline.image_deflate_pixels.\(key)"
        report.add(Figure(suite: "image", name: deflateName, unit: "ms", sample: deflate,
                          note: "libdeflate level 6, one call over the raw pixel bytes (no filters), one thread", details: details))

        var ours: [UInt8] = []
        let png = try stopwatch.measure { () throws -> Int in
            ours = try PNGWriter.encode(image)
            return ours.count
        }
        var figure = Figure(suite: "image", name: "image.png_encode.\(key)", unit: "ms", sample: png,
                            baseline: .init(figure: deflateName, value: deflate.median),
                            note: "PNGWriter, level \(PNGWriter.defaultCompressionLevel), all cores; \(ours.count) bytes",
                            details: details + [("bytes", .int(ours.count))])
        figure.target = .init(text: String(format: "≤ %.1f× raw libdeflate", Self.pngTimeTarget),
                              met: figure.ratio.map { $0 <= Self.pngTimeTarget })
        report.add(figure)
        let oneThread = try stopwatch.measure { try PNGWriter.encode(image, threads: 1) }
        report.add(Figure(suite: "image", name: "image.png_encode.\(key).t1", unit: "ms", sample: oneThread,
                          baseline: .init(figure: deflateName, value: deflate.median), note: "PNGWriter on one thread",
                          details: details + [("threads", .int(1))]))

        var libpng: [UInt8] = []
        let libpngTime = try stopwatch.measure { () throws -> Int in
            libpng = try LibpngBaseline.encode(image)
            return libpng.count
        }
        let libpngName = "baseline.libpng_encode.\(key)"
        report.add(Figure(suite: "image", name: libpngName, unit: "ms", sample: libpngTime,
                          note: "libpng simplified writer, default settings (zlib 6, adaptive filters), one thread; \(libpng.count) bytes",
                          details: details + [("bytes", .int(libpng.count))]))
        var size = Figure(suite: "image", name: "image.png_size.\(key)", unit: "bytes", sample: Sample([Double(ours.count)]),
                          baseline: .init(figure: "\(libpngName) size", value: Double(libpng.count)),
                          note: String(format: "%.1f %% of the RGBA bytes; libpng %.1f %%",
                                       100 * Double(ours.count) / Double(image.pixels.count),
                                       100 * Double(libpng.count) / Double(image.pixels.count)),
                          details: details)
        size.target = .init(text: String(format: "≤ %.2f× libpng's size", Self.pngSizeTarget),
                            met: size.ratio.map { $0 <= Self.pngSizeTarget })
        report.add(size)
    }

    /// JPEG and WebP through `StillImageEncoder` (what the service calls), time and size; the
    /// sizes sit beside the PNG's so the formats compare on one render.
    private func measureOtherFormats(_ image: ImageBuffer, scene: String, side: Int) throws {
        let key = "\(scene).\(side)"
        let png = try PNGWriter.encode(image).count
        let cases: [(String, ImageFormat, Double?, String)] = [
            ("jpeg_q90", .jpeg, nil, "JPEG quality 90 (4:4:4) over white, all cores"),
            ("jpeg_q75", .jpeg, 75, "JPEG quality 75 (4:2:0) over white, all cores"),
            ("webp_lossless", .webp, nil, "WebP lossless, effort \(StillImageEncoder.webpEffort), one thread (libwebp)"),
            ("webp_q90", .webp, 90, "WebP lossy quality 90 with lossless alpha, effort \(StillImageEncoder.webpEffort), one thread"),
        ]
        for (name, format, quality, note) in cases {
            var bytes = 0
            let time = try stopwatch.measure { () throws -> Int in
                bytes = try StillImageEncoder.encode(image, as: format, quality: quality).count
                return bytes
            }
            let details: [(String, JSONScalar)] = [("scene", .string(scene)), ("width", .int(side)), ("height", .int(side)),
                                                   ("bytes", .int(bytes))]
            report.add(Figure(suite: "image", name: "image.\(name)_encode.\(key)", unit: "ms", sample: time,
                              note: "\(note); \(bytes) bytes", details: details))
            report.add(Figure(suite: "image", name: "image.\(name)_size.\(key)", unit: "bytes", sample: Sample([Double(bytes)]),
                              baseline: .init(figure: "image.png_encode.\(key) bytes", value: Double(png)),
                              note: String(format: "%.1f %% of the PNG", 100 * Double(bytes) / Double(png)), details: details))
        }
    }
}
