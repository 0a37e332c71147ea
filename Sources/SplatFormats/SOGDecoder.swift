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
        var degree = meta.shN?.bands ?? 0
        if meta.version == 1, let shn = meta.shN {
            let name = shn.centroidsFile
            let info = try files.contents(of: name, field: "shN.files[0]").withBytes { (b) throws(SplatError) in
                try WebPImageDecoder.info(b, file: files.label(name), limits: limits)
            }
            degree = try centroidBands(width: info.width, declared: nil, file: files.label(name))
        }
        return header(meta, files: files, degree: degree, textureSize: nil)
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
        let encoded = try parallelMap(names.count) { (i: Int) throws(SplatError) -> RetainedBytes in
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
        let decoded = try parallelMap(order.count) { (j: Int) throws(SplatError) -> RGBAImage in
            let i = order[j]
            return try encoded[i].withBytes { (b) throws(SplatError) in
                try WebPImageDecoder.decode(b, info: infos[i], file: files.label(names[i]))
            }
        }
        var images = [RGBAImage?](repeating: nil, count: names.count)
        for (j, i) in order.enumerated() { images[i] = decoded[j] }

        let scene = SplatScene(count: meta.count, shDegree: kept)
        let assembly = SOGAssembly(meta: meta, images: images, keptDegree: kept, fileDegree: fileDegree, paletteBound: paletteBound)
        let report = assembly.run(into: scene)
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

    /// Runs `body` for each index concurrently and returns the results in index order, or the
    /// error of the lowest failing index (so the reported error does not depend on timing).
    private static func parallelMap<T>(_ count: Int, _ body: (Int) throws(SplatError) -> T) throws(SplatError) -> [T] {
        let slots = UnsafeMutableBufferPointer<Result<T, SplatError>?>.allocate(capacity: count)
        slots.initialize(repeating: nil)
        defer { slots.deinitialize().deallocate() }
        Parallel.forEach(iterations: count) { i in
            do throws(SplatError) { slots[i] = .success(try body(i)) } catch { slots[i] = .failure(error) }
        }
        var out: [T] = []
        out.reserveCapacity(count)
        for slot in slots {
            switch slot {
            case .success(let v): out.append(v)
            case .failure(let e): throw e
            case nil: preconditionFailure("Parallel.forEach ran every index")
            }
        }
        return out
    }
}

/// The files of one SOG scene, from a zip in memory or a folder on disk.
private struct SOGFileSet {
    private let archive: ZipArchive?
    private let folder: String?
    private let metaPath: String?
    private let limits: DecodeLimits
    /// The `.sog` or `meta.json` name errors carry.
    let sceneLabel: String

    var isBundle: Bool { archive != nil }
    var metaLabel: String { label("meta.json") }

    init(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) {
        self.limits = limits
        switch source {
        case .bundle(let bytes, let name):
            sceneLabel = name ?? "bundle.sog"
            archive = try ZipArchive(bytes, file: sceneLabel)
            folder = nil
            metaPath = nil
        case .directory(let path):
            sceneLabel = path
            archive = nil
            metaPath = path
            folder = (path as NSString).deletingLastPathComponent
        }
    }

    /// What errors about `name` should call it: "archive.sog:name" or the resolved path.
    func label(_ name: String) -> String {
        if let archive { return archive.file.map { "\($0):\(name)" } ?? name }
        if name == "meta.json", let metaPath { return metaPath }
        return path(of: name)
    }

    private func path(of name: String) -> String {
        guard let folder, !folder.isEmpty else { return name }
        return (folder as NSString).appendingPathComponent(name)
    }

    /// `meta.json`, size-checked before it is read or inflated.
    func metaJSON() throws(SplatError) -> RetainedBytes {
        if let archive {
            guard let entry = archive.entry(named: "meta.json") else {
                throw SplatError(.truncated, "no meta.json at the root of the archive", file: sceneLabel)
            }
            guard entry.uncompressedSize <= limits.maxMetaJsonBytes else {
                throw SplatError(.tooLarge, "meta.json is \(entry.uncompressedSize) bytes; the limit is \(limits.maxMetaJsonBytes)", file: metaLabel)
            }
            return try archive.contents(of: entry, limits: limits)
        }
        return try readFile(metaPath ?? "meta.json", field: "meta.json")
    }

    /// An image named in `files`. Missing → `truncated`.
    func contents(of name: String, field: String) throws(SplatError) -> RetainedBytes {
        if let archive {
            guard let entry = archive.entry(named: name) else {
                throw SplatError(.truncated, "the archive has no entry \"\(name)\" named by \(field)", file: sceneLabel, field: field)
            }
            return try archive.contents(of: entry, limits: limits)
        }
        return try readFile(path(of: name), field: field)
    }

    /// Checks the summed sizes of the deflated archive entries among `names` against the ceiling.
    func checkInflatedTotal(of names: [String]) throws(SplatError) {
        guard let archive else { return }
        var total = 0
        for name in names {
            guard let entry = archive.entry(named: name), entry.method != 0 else { continue }
            guard let sum = CheckedSize.add(total, entry.uncompressedSize) else {
                throw SplatError(.tooLarge, "inflated image entries overflow a 64-bit size", file: sceneLabel)
            }
            total = sum
        }
        try limits.checkIntermediate(bytes: total, what: "the scene's inflated image entries", file: sceneLabel)
    }

    private func readFile(_ path: String, field: String) throws(SplatError) -> RetainedBytes {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw SplatError(.truncated, "file \(path) named by \(field) does not exist", file: path, field: field)
        }
        let input = try InputBytes(path: path)
        return RetainedBytes(bytes: input.bytes, owner: input)
    }
}

/// The per-splat pass: splat i is pixel i of every per-splat image (row-major from the
/// top-left, so the pixel index is the splat index). Byte meanings come from the meta's
/// 256-entry tables, so v1 and v2 share this loop.
private struct SOGAssembly {
    struct Report {
        var badQuaternions = 0
        var firstBadQuaternion = Int.max
        var firstBadLabel: (index: Int, label: Int)?
    }

    let meta: SOGMeta
    /// Decoded images in `SOGMeta.imageFiles` order; the SH pair is nil when not decoded.
    let images: [RGBAImage?]
    let keptDegree: Int
    let fileDegree: Int
    /// Labels must be below this (palette size, and inside the centroid image).
    let paletteBound: Int

    // Offsets into the flat byte → value table.
    private static let scaleOffset = 0, dcOffset = 768, alphaOffset = 1536, quatOffset = 1792, shOffset = 2048
    private static let tableCount = 2304
    /// Below this many splats, positions are computed directly instead of through 3 × 65536 tables.
    private static let positionTableThreshold = 65536

    func run(into scene: SplatScene) -> Report {
        let n = scene.count
        var table = [Float]()
        table.reserveCapacity(Self.tableCount)
        for t in meta.scaleTables { table += t }
        for t in meta.dcTables { table += t }
        table += meta.alphaTable
        table += (0..<256).map { Float((Double($0) / 255 - 0.5) * 2.0.squareRoot()) }
        table += meta.shN?.values ?? [Float](repeating: 0, count: 256)

        let mins = meta.meansMins, span = meta.meansMaxs - meta.meansMins
        var positions = [Float]()
        if n > Self.positionTableThreshold {
            positions = [Float](unsafeUninitializedCapacity: 3 * 65536) { buffer, initialized in
                let out = buffer
                Parallel.forEachChunk(count: 3 * 65536, chunkSize: 16384) { _, range in
                    for j in range {
                        let axis = j >> 16
                        out[j] = Self.position(j & 0xFFFF, min: mins[axis], span: span[axis])
                    }
                }
                initialized = 3 * 65536
            }
        }

        let chunkSize = 16384
        let chunks = (n + chunkSize - 1) / chunkSize
        let reports = UnsafeMutableBufferPointer<Report>.allocate(capacity: chunks)
        reports.initialize(repeating: Report())
        defer { reports.deinitialize().deallocate() }
        // The image storages must outlive the raw pixel pointers the chunks read through.
        withExtendedLifetime(images) {
            table.withUnsafeBufferPointer { table in
                positions.withUnsafeBufferPointer { positions in
                    Parallel.forEachChunk(count: n, chunkSize: chunkSize) { c, range in
                        reports[c] = assemble(range, scene: scene, table: table, positions: positions, mins: mins, span: span)
                    }
                }
            }
        }
        var total = Report()
        for r in reports {
            total.badQuaternions += r.badQuaternions
            total.firstBadQuaternion = min(total.firstBadQuaternion, r.firstBadQuaternion)
            if total.firstBadLabel == nil { total.firstBadLabel = r.firstBadLabel }
        }
        return total
    }

    /// The symmetric log transform's inverse for a 16-bit position value, in Double.
    @inline(__always)
    private static func position(_ q: Int, min: Double, span: Double) -> Float {
        let t = min + span * (Double(q) / 65535)
        return Float(t < 0 ? -expm1(-t) : expm1(t))
    }

    private func assemble(_ range: Range<Int>, scene: SplatScene, table: UnsafeBufferPointer<Float>,
                          positions: UnsafeBufferPointer<Float>, mins: SIMD3<Double>, span: SIMD3<Double>) -> Report {
        func pixels(_ i: Int) -> UnsafePointer<UInt8> {
            images[i]!.pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
        }
        let meansL = pixels(0), meansU = pixels(1), quats = pixels(2), scales = pixels(3), sh0 = pixels(4)
        let t = table.baseAddress!
        let px = scene.columnBase(.x), py = scene.columnBase(.y), pz = scene.columnBase(.z)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let rw = scene.columnBase(.rotW), rx = scene.columnBase(.rotX), ry = scene.columnBase(.rotY), rz = scene.columnBase(.rotZ)
        let alpha = scene.columnBase(.alpha)
        let dr = scene.columnBase(.dcR), dg = scene.columnBase(.dcG), db = scene.columnBase(.dcB)
        let usePositionTable = !positions.isEmpty
        var report = Report()

        for i in range {
            let o = 4 * i
            @inline(__always) func coordinate(_ axis: Int) -> Float {
                let q = Int(meansU[o + axis]) << 8 | Int(meansL[o + axis])
                return usePositionTable ? positions[axis << 16 | q] : Self.position(q, min: mins[axis], span: span[axis])
            }
            px[i] = coordinate(0)
            py[i] = coordinate(1)
            pz[i] = coordinate(2)

            // The alpha byte is 252 + the index (w, x, y, z) of the dropped largest component.
            // The mode is random per splat, so the placement uses selects, not a switch.
            let mode = Int(quats[o + 3]) - 252
            let a = t[Self.quatOffset + Int(quats[o])]
            let b = t[Self.quatOffset + Int(quats[o + 1])]
            let c = t[Self.quatOffset + Int(quats[o + 2])]
            let d = max(0, 1 - a * a - b * b - c * c).squareRoot()
            var w = mode == 0 ? d : a
            var x = mode == 0 ? a : (mode == 1 ? d : b)
            var y = mode <= 1 ? b : (mode == 2 ? d : c)
            var z = mode == 3 ? d : c
            // |q| ≥ 1 when d is clamped to 0, and d > 0 otherwise: the length is never 0.
            let inverse = 1 / (w * w + x * x + y * y + z * z).squareRoot()
            w *= inverse; x *= inverse; y *= inverse; z *= inverse
            if mode < 0 {
                w = 1; x = 0; y = 0; z = 0
                report.badQuaternions += 1
                report.firstBadQuaternion = min(report.firstBadQuaternion, i)
            }
            rw[i] = w
            rx[i] = x
            ry[i] = y
            rz[i] = z

            sx[i] = t[Self.scaleOffset + Int(scales[o])]
            sy[i] = t[Self.scaleOffset + 256 + Int(scales[o + 1])]
            sz[i] = t[Self.scaleOffset + 512 + Int(scales[o + 2])]
            dr[i] = t[Self.dcOffset + Int(sh0[o])]
            dg[i] = t[Self.dcOffset + 256 + Int(sh0[o + 1])]
            db[i] = t[Self.dcOffset + 512 + Int(sh0[o + 2])]
            alpha[i] = t[Self.alphaOffset + Int(sh0[o + 3])]
        }

        guard keptDegree > 0 else { return report }
        let centroids = pixels(5), labels = pixels(6)
        let keptDim = SplatScene.shCoefficientCount(degree: keptDegree)
        let fileDim = SplatScene.shCoefficientCount(degree: fileDegree)
        let centroidWidth = 64 * fileDim
        let sh = scene.sh.baseAddress!
        for i in range {
            let label = Int(labels[4 * i]) | Int(labels[4 * i + 1]) << 8
            let out = sh + i * keptDim * 3
            guard label < paletteBound else {
                if report.firstBadLabel == nil { report.firstBadLabel = (i, label) }
                out.update(repeating: 0, count: keptDim * 3)
                continue
            }
            // Palette entry e sits at x = (e mod 64)·dim + k, y = e / 64.
            let base = (label >> 6) * centroidWidth + (label & 63) * fileDim
            for k in 0..<keptDim {
                let p = centroids + 4 * (base + k)
                out[3 * k] = t[Self.shOffset + Int(p[0])]
                out[3 * k + 1] = t[Self.shOffset + Int(p[1])]
                out[3 * k + 2] = t[Self.shOffset + Int(p[2])]
            }
        }
        return report
    }
}
