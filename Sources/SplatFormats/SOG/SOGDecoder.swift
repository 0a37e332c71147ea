import Foundation
import SplatCore

/// Where a SOG scene's files come from.
public enum SOGSource {
    /// A bundled `.sog` zip in memory; `meta.json` and the images sit at the archive root and
    /// the names in `files` are exact entry names. `name` is used in messages.
    case bundle(UnsafeRawBufferPointer, name: String?)
    /// An unbundled scene: `meta.json` on disk with its images resolved relative to its folder.
    case directory(metaPath: String)
}

/// Decodes PlayCanvas SOG scenes, versions 1 and 2, bundled or not (`formats.md` 5).
///
/// Order of work: `meta.json` is parsed and validated, the scene size is checked against the
/// limits, every image's header is read and its `W·H·4` checked (alone and summed) before any
/// pixel buffer exists, the images are decoded concurrently with libwebp, and the splats are
/// assembled in parallel chunks. Values stay in the file's own frame (conventionally RDF).
public enum SOGDecoder {
    /// Reads `meta.json` only: version, count, SH degree, model. For a v1 scene with higher SH
    /// the degree comes from the centroid image's width, read from its WebP header (no pixels
    /// are decoded).
    public static func readHeader(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        let files = try SOGFileSet(source, limits: limits)
        let meta = try files.metaJSON().withBytes { (json) throws(SplatError) in
            try SOGMeta(json: json, file: files.metaLabel, limits: limits)
        }
        // Every image's header (not its pixels): the v1 SH degree comes from the centroid width,
        // and the decoded sizes are what a job must budget for (five 6300² images behind a
        // one-splat meta.json are 794 MB of pixels).
        let names = meta.imageFiles
        // Sizes are read, not judged: a header describes a scene over the ceiling (admission and
        // the decode refuse it), so only the image side limit applies here.
        var sizing = limits
        sizing.maxDecodedBytes = Int.max
        var infos: [WebPImageDecoder.Info] = []
        var encodedBytes = 0
        for (i, name) in names.enumerated() {
            let field = i < 5 ? "image \(i)" : "shN.files[\(i - 5)]"
            let info = try files.contents(of: name, field: field).withBytes { (b) throws(SplatError) in
                encodedBytes += b.count
                return try WebPImageDecoder.info(b, file: files.label(name), limits: sizing)
            }
            infos.append(info)
        }
        var degree = meta.shN?.bands ?? 0
        if meta.version == 1, meta.shN != nil, infos.count > 5 {
            degree = try centroidBands(width: infos[5].width, declared: nil, file: files.label(names[5]))
        }
        var result = header(meta, files: files, degree: degree, textureSize: nil)
        let pixels = infos.reduce(0) { CheckedSize.add($0, $1.decodedBytes) ?? Int.max }
        // Images are decoded on every core at once, each with libwebp's own working copy.
        let concurrent = min(Parallel.processorCount, infos.count)
        let working = CheckedSize.mul(infos.map(\.workingBytes).max() ?? 0, concurrent) ?? Int.max
        result.decodeScratchBytes = [pixels, working, encodedBytes, meta.parsedBytes].reduce(0) { CheckedSize.add($0, $1) ?? Int.max }
        return result
    }

    /// Decodes the whole scene. See the type's documentation for the order of checks.
    public static func decode(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        let files = try SOGFileSet(source, limits: limits)
        let meta = try files.metaJSON().withBytes { (json) throws(SplatError) in
            try SOGMeta(json: json, file: files.metaLabel, limits: limits)
        }
        // Fail early on the part of the size the meta already fixes (v1 may add SH later).
        try limits.checkScene(count: meta.count, fileDegree: meta.shN?.bands ?? 0, file: files.sceneLabel)

        let names = meta.imageFiles
        let fields = ["means.files[0]", "means.files[1]", "quats.files[0]", "scales.files[0]", "sh0.files[0]",
                      "shN.files[0]", "shN.files[1]"]

        // Deflated entries are inflated all at once below: bound their sum, not only each one.
        try files.checkInflatedTotal(of: names)
        // Encoded bytes of every image: borrowed for stored entries and files, inflated otherwise.
        let encoded = try Parallel.map(names.count, cancellation: CancellationToken.current) { (i: Int) throws(SplatError) -> RetainedBytes in
            try files.contents(of: names[i], field: fields[i])
        }

        // Headers only: sizes are checked before any pixel buffer exists.
        var warnings = meta.warnings
        var infos: [WebPImageDecoder.Info] = []
        var totalBytes = 0
        for (i, name) in names.enumerated() {
            let info = try encoded[i].withBytes { (b) throws(SplatError) in
                try WebPImageDecoder.info(b, file: files.label(name), limits: limits)
            }
            if info.isLossy { warnings.append("\(name) is lossy WebP (VP8); decoded values will be inexact") }
            guard let sum = CheckedSize.add(totalBytes, info.decodedBytes) else {
                throw SplatError(.tooLarge, "decoded images overflow a 64-bit size", file: files.sceneLabel)
            }
            totalBytes = sum
            infos.append(info)
        }
        try limits.checkIntermediate(bytes: totalBytes, what: "the scene's \(names.count) decoded images", file: files.sceneLabel)

        let width = infos[0].width, height = infos[0].height
        let perSplat = meta.shN == nil ? Array(0..<5) : [0, 1, 2, 3, 4, 6]
        for i in perSplat where infos[i].width != width || infos[i].height != height {
            throw SplatError(.badTexture, "\(names[i]) is \(infos[i].width)×\(infos[i].height) but \(names[0]) is \(width)×\(height); all per-splat images must match",
                             file: files.label(names[i]), field: fields[i])
        }
        guard meta.count <= width * height else {
            throw SplatError(.badTexture, "count \(meta.count) exceeds the \(width)×\(height) = \(width * height) pixels of the images",
                             file: files.sceneLabel, field: "count")
        }
        var fileDegree = 0
        var paletteBound = 0
        if let shn = meta.shN {
            let centroids = infos[5]
            fileDegree = try centroidBands(width: centroids.width, declared: shn.bands, file: files.label(names[5]))
            // Rows beyond the image are as invalid as labels beyond the palette.
            let rowsBound = 64 * centroids.height
            paletteBound = min(shn.paletteSize ?? rowsBound, rowsBound)
        }
        let kept = try limits.checkScene(count: meta.count, fileDegree: fileDegree, file: files.sceneLabel)

        // Decode, largest files first so the two cores finish together.
        let needed = kept > 0 ? Array(names.indices) : Array(0..<5)
        let order = needed.sorted { encoded[$0].count > encoded[$1].count }
        // The job's token, passed down: the workers that decode have none bound.
        let cancellation = CancellationToken.current
        let decoded = try Parallel.map(order.count, cancellation: cancellation) { (j: Int) throws(SplatError) -> ImageBuffer in
            let i = order[j]
            return try encoded[i].withBytes { (b) throws(SplatError) in
                try WebPImageDecoder.decode(b, info: infos[i], file: files.label(names[i]), cancellation: cancellation)
            }
        }
        var images = [ImageBuffer?](repeating: nil, count: names.count)
        for (j, i) in order.enumerated() { images[i] = decoded[j] }

        let scene = SplatScene(count: meta.count, shDegree: kept)
        let assembly = SOGAssembly(meta: meta, images: images, keptDegree: kept, fileDegree: fileDegree, paletteBound: paletteBound)
        let report = assembly.run(into: scene)
        try CancellationToken.checkCurrent("while assembling SOG splats")
        if let bad = report.firstBadLabel {
            throw SplatError(.badTexture, "splat \(bad.index): shN label \(bad.label) is outside the palette of \(paletteBound) entries",
                             file: files.label(names[6]), field: "shN.files[1]")
        }
        if report.badQuaternions > 0 {
            warnings.append("\(report.badQuaternions) splat(s) have a quats alpha outside 252...255 (first: splat \(report.firstBadQuaternion)); set to identity")
        }
        scene.model = meta.model
        scene.conventionalFrame = .rdf
        scene.warnings = warnings
        var header = header(meta, files: files, degree: fileDegree, textureSize: (width, height))
        header.warnings = warnings
        return DecodedScene(scene: scene, header: header)
    }

    /// SH bands from the centroid width: `64·dim` pixels (192, 512, 960 for 1, 2, 3 bands).
    private static func centroidBands(width: Int, declared: Int?, file: String) throws(SplatError) -> Int {
        if let bands = declared {
            let expected = 64 * SplatScene.shCoefficientCount(degree: bands)
            guard width == expected else {
                throw SplatError(.badTexture, "shN centroids are \(width) pixels wide; \(bands) band(s) need \(expected)", file: file, field: "shN.files[0]")
            }
            return bands
        }
        guard let bands = (1...3).first(where: { 64 * SplatScene.shCoefficientCount(degree: $0) == width }) else {
            throw SplatError(.badTexture, "shN centroids are \(width) pixels wide; expected 192, 512 or 960 (1, 2 or 3 bands)", file: file, field: "shN.files[0]")
        }
        return bands
    }

    private static func header(_ meta: SOGMeta, files: SOGFileSet, degree: Int, textureSize: (Int, Int)?) -> SceneHeader {
        var details = ["sog_version": String(meta.version), "bundled": files.isBundle ? "true" : "false"]
        if let generator = meta.generator { details["generator"] = generator }
        if let (w, h) = textureSize { details["texture_size"] = "\(w)x\(h)" }
        if let palette = meta.shN?.paletteSize { details["sh_palette_size"] = String(palette) }
        return SceneHeader(format: .sog, version: meta.version, count: meta.count, shDegree: degree, model: meta.model,
                           conventionalFrame: .rdf, warnings: meta.warnings, details: details)
    }
}
