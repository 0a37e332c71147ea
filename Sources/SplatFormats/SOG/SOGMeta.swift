import Foundation
import SplatCore

/// A validated SOG `meta.json`, version 1 or 2 (`formats.md` 5.2, 5.3), reduced to what the
/// decoder needs: the image names in their roles and, per attribute, what each byte value
/// decodes to (256-entry tables), so that the per-splat loop is the same for both versions.
struct SOGMeta: Sendable {
    /// The higher-SH part (`shN`), when present.
    struct SphericalHarmonicsPart: Sendable {
        var centroidsFile: String
        var labelsFile: String
        /// v2 `bands` (1...3); nil for v1, where the centroid image width decides.
        var bands: Int?
        /// v2 palette size (`shN.count`); nil for v1, where the centroid image size decides.
        var paletteSize: Int?
        /// Coefficient value for each centroid byte.
        var values: [Float]
    }

    /// 1 (legacy, no `version` key) or 2.
    var version: Int
    var count: Int
    var model: SplatModel
    var warnings: [String] = []
    /// The most the parsed tree of this meta.json can hold (`JSONParser.treeBytesBound`).
    var parsedBytes = 0
    /// `asset.generator`, when given.
    var generator: String?

    var meansMins: SIMD3<Double>
    var meansMaxs: SIMD3<Double>
    var meansLowerFile: String
    var meansUpperFile: String
    var quatsFile: String
    var scalesFile: String
    var sh0File: String

    /// Log-scale for each byte value, per axis (x, y, z): 3 × 256.
    var scaleTables: [[Float]]
    /// DC coefficient for each byte value, per channel (R, G, B): 3 × 256.
    var dcTables: [[Float]]
    /// Alpha in [0, 1] for each byte of the `sh0` alpha channel.
    var alphaTable: [Float]
    var shN: SphericalHarmonicsPart?

    /// All image names in `files` order of roles (per-splat images first).
    var imageFiles: [String] {
        [meansLowerFile, meansUpperFile, quatsFile, scalesFile, sh0File] + (shN.map { [$0.centroidsFile, $0.labelsFile] } ?? [])
    }

    /// Parses and validates `meta.json` bytes. Oversized → `too_large`; not JSON, missing or
    /// ill-typed keys, bad codebooks, bands ∉ 1...3, unsafe file names → `bad_meta`; a
    /// `version` other than 2 → `unsupported_version`.
    init(json bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) {
        guard bytes.count <= limits.maxMetaJsonBytes else {
            throw SplatError(.tooLarge, "meta.json is \(bytes.count) bytes; the limit is \(limits.maxMetaJsonBytes)", file: file)
        }
        // The parsed tree is an intermediate of the decode, so its bound is counted before the
        // parse starts (30 MiB of "0," is 35 KB deflated in a .sog). Our own bounded parser keeps
        // that bound: Foundation's allocated an object per value, 60–90 bytes each depending on
        // the allocator's state, so a meta.json of a million values overran its estimate.
        let values = JSONParser.valueBound(bytes)
        let parsedBytes = JSONParser.treeBytesBound(bytes)
        self.parsedBytes = parsedBytes
        // A SOG meta.json needs a few thousand values (256-entry codebooks, mins and maxs): far
        // more is padding meant to make the parse expensive.
        guard values <= limits.maxMetaJsonValues else {
            throw SplatError(.tooLarge, "meta.json holds up to \(values) JSON values; parsing them would take about \(parsedBytes) bytes; a SOG scene needs a few thousand and the limit is \(limits.maxMetaJsonValues) values",
                             file: file)
        }
        // Checked against the larger of the two ceilings: a tiny scene ceiling must not refuse an
        // ordinary meta.json.
        let parseLimit = max(limits.maxDecodedBytes, limits.maxMetaJsonBytes)
        guard parsedBytes <= parseLimit else {
            throw SplatError(.tooLarge, "meta.json holds up to \(values) JSON values; parsing them would take about \(parsedBytes) bytes; the limit is \(parseLimit)",
                             file: file)
        }
        // A UTF-8 byte order mark (Windows editors write one) is skipped, as Foundation's parser did.
        let hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        let text = hasBOM ? UnsafeRawBufferPointer(rebasing: bytes[3...]) : bytes
        let root = try JSONParser.parse(text, file: file, maxValues: values)
        let json = SOGMetaFields(file: file)
        let top = try json.object(root, "meta.json")

        if let v = top["version"], !v.isNull {
            guard v.integerValue == 2 else {
                throw SplatError(.unsupportedVersion, "SOG meta.json version \(v.brief) is not supported (only 2, or no version key for v1)",
                                 file: file, field: "version")
            }
            version = 2
        } else {
            version = 1
        }

        let means = try json.object(top["means"], "means")
        meansMins = try json.vector3(means["mins"], "means.mins")
        meansMaxs = try json.vector3(means["maxs"], "means.maxs")
        let meansFiles = try json.files(means["files"], "means.files", count: 2)
        meansLowerFile = meansFiles[0]
        meansUpperFile = meansFiles[1]
        quatsFile = try json.files(json.object(top["quats"], "quats")["files"], "quats.files", count: 1)[0]
        let scales = try json.object(top["scales"], "scales")
        scalesFile = try json.files(scales["files"], "scales.files", count: 1)[0]
        let sh0 = try json.object(top["sh0"], "sh0")
        sh0File = try json.files(sh0["files"], "sh0.files", count: 1)[0]
        generator = top["asset"]?.objectValue?["generator"]?.stringValue

        var warnings: [String] = hasBOM ? ["meta.json starts with a UTF-8 byte order mark; skipped"] : []
        if version == 2 {
            guard let n = top["count"]?.integerValue, n >= 1 else {
                throw SplatError(.badMeta, "count must be a positive integer", file: file, field: "count")
            }
            count = n
            let scaleBook = try json.codebook(scales["codebook"], "scales.codebook", warnings: &warnings)
            scaleTables = [scaleBook, scaleBook, scaleBook]
            let dcBook = try json.codebook(sh0["codebook"], "sh0.codebook", warnings: &warnings)
            dcTables = [dcBook, dcBook, dcBook]
            alphaTable = (0..<256).map { Float(Double($0) / 255) }
        } else {
            // v1 keeps the count in every attribute's shape; means is the one the engine reads.
            guard let n = means["shape"]?.arrayValue?.first?.integerValue, n >= 1 else {
                throw SplatError(.badMeta, "means.shape[0] (the splat count) must be a positive integer", file: file, field: "means.shape")
            }
            count = n
            let smin = try json.numbers(scales["mins"], "scales.mins", count: 3)
            let smax = try json.numbers(scales["maxs"], "scales.maxs", count: 3)
            scaleTables = (0..<3).map { Self.lerpTable(smin[$0], smax[$0]) }
            let cmin = try json.numbers(sh0["mins"], "sh0.mins", count: 4)
            let cmax = try json.numbers(sh0["maxs"], "sh0.maxs", count: 4)
            dcTables = (0..<3).map { Self.lerpTable(cmin[$0], cmax[$0]) }
            // The v1 alpha channel is a quantised logit.
            alphaTable = (0..<256).map { b in
                let logit = cmin[3] + (cmax[3] - cmin[3]) * Double(b) / 255
                return Float(1 / (1 + exp(-logit)))
            }
        }

        if let raw = top["shN"], !raw.isNull {
            let shn = try json.object(raw, "shN")
            let files = try json.files(shn["files"], "shN.files", count: 2)
            if version == 2 {
                guard let bands = shn["bands"]?.integerValue, (1...3).contains(bands) else {
                    throw SplatError(.badMeta, "shN.bands must be 1, 2 or 3", file: file, field: "shN.bands")
                }
                guard let palette = shn["count"]?.integerValue, palette >= 1 else {
                    throw SplatError(.badMeta, "shN.count (palette size) must be a positive integer", file: file, field: "shN.count")
                }
                let book = try json.codebook(shn["codebook"], "shN.codebook", warnings: &warnings)
                shN = SphericalHarmonicsPart(centroidsFile: files[0], labelsFile: files[1], bands: bands, paletteSize: palette, values: book)
            } else {
                let lo = try json.number(shn["mins"], "shN.mins"), hi = try json.number(shn["maxs"], "shN.maxs")
                shN = SphericalHarmonicsPart(centroidsFile: files[0], labelsFile: files[1], bands: nil, paletteSize: nil,
                                             values: Self.lerpTable(lo, hi))
            }
        }

        // A valid `model` wins; otherwise `antialias: true` means antialiased.
        var model = SplatModel.default
        if let name = top["model"]?.stringValue, let m = SplatModel(rawValue: name) {
            model = m
        } else {
            if let unknown = top["model"], !unknown.isNull {
                warnings.append("unknown SOG model \(unknown.brief) ignored")
            }
            if top["antialias"]?.boolValue == true { model = .antialiased }
        }
        self.model = model
        self.warnings = warnings
    }

    /// `lerp(lo, hi, b/255)` for every byte, computed in Double.
    private static func lerpTable(_ lo: Double, _ hi: Double) -> [Float] {
        (0..<256).map { Float(lo + (hi - lo) * Double($0) / 255) }
    }

    /// A `files` name that cannot leave the scene's folder or archive root: relative, no `..`
    /// component, no URL scheme, no NUL.
    static func isSafeFileName(_ name: String) -> Bool {
        guard !name.isEmpty, !name.contains("\0"), ZipArchive.isSafeName(name) else { return false }
        if name.contains("://") { return false }
        // "scheme:" prefixes (data:, http:, file:, C: drive letters).
        if let colon = name.firstIndex(of: ":"), !name[..<colon].contains(where: { $0 == "/" || $0 == "\\" }) { return false }
        return true
    }
}

/// Typed reads of `meta.json` values; every failure is a `bad_meta` naming the key.
private struct SOGMetaFields {
    let file: String?

    func fail(_ field: String, _ message: String) -> SplatError {
        SplatError(.badMeta, "\(field) \(message)", file: file, field: field)
    }

    func object(_ v: JSONValue?, _ field: String) throws(SplatError) -> [String: JSONValue] {
        guard let o = v?.objectValue else { throw fail(field, v == nil ? "is missing" : "must be an object") }
        return o
    }

    func number(_ v: JSONValue?, _ field: String) throws(SplatError) -> Double {
        guard let n = v?.numberValue else { throw fail(field, v == nil ? "is missing" : "must be a finite number") }
        return n
    }

    func numbers(_ v: JSONValue?, _ field: String, count: Int) throws(SplatError) -> [Double] {
        guard let a = v?.arrayValue, a.count == count else { throw fail(field, "must be an array of \(count) numbers") }
        var out: [Double] = []
        for (i, e) in a.enumerated() { out.append(try number(e, "\(field)[\(i)]")) }
        return out
    }

    func vector3(_ v: JSONValue?, _ field: String) throws(SplatError) -> SIMD3<Double> {
        let a = try numbers(v, field, count: 3)
        return SIMD3(a[0], a[1], a[2])
    }

    /// At least `count` safe relative names; extra names are ignored.
    func files(_ v: JSONValue?, _ field: String, count: Int) throws(SplatError) -> [String] {
        guard let a = v?.arrayValue, a.count >= count else { throw fail(field, "must list \(count) file name(s)") }
        var out: [String] = []
        for (i, e) in a.prefix(count).enumerated() {
            guard let name = e.stringValue else { throw fail("\(field)[\(i)]", "must be a string") }
            guard SOGMeta.isSafeFileName(name) else {
                throw fail("\(field)[\(i)]", "\"\(name)\" must be a relative path without '..' components or URL scheme")
            }
            out.append(name)
        }
        return out
    }

    /// 256 finite numbers. A lone `null` at entry 0 (older writers) is repaired the way the
    /// PlayCanvas engine does, one average step below entry 1, with a warning.
    func codebook(_ v: JSONValue?, _ field: String, warnings: inout [String]) throws(SplatError) -> [Float] {
        guard let a = v?.arrayValue, a.count == 256 else { throw fail(field, "must be an array of 256 numbers") }
        var values = [Double](repeating: 0, count: 256)
        var nullAtZero = false
        for (i, e) in a.enumerated() {
            if i == 0, e.isNull { nullAtZero = true; continue }
            guard let n = e.numberValue else {
                let what = e.isNull ? (a.allSatisfy(\.isNull) ? "is all null (values lost by an old writer)" : "has null at entry \(i)")
                    : "has a non-numeric entry at \(i)"
                throw fail(field, what)
            }
            values[i] = n
        }
        if nullAtZero {
            values[0] = values[1] - (values[255] - values[1]) / 255
            warnings.append("\(field)[0] was null; repaired to \(Float(values[0])) as the PlayCanvas engine does")
        }
        return values.map { Float($0) }
    }
}
