import Foundation
import SplatCore
import Testing
import TestSupport
@testable import SplatFormats

// MARK: - Helpers

/// The meta.json (parsed) and the images of `vectors/tiny.sog`, for building variants.
private func tinyParts() throws -> (meta: [String: Any], images: [String: [UInt8]]) {
    let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny.sog")))
    var entries: [String: [UInt8]] = [:]
    try data.withUnsafeBytes { raw in
        let zip = try ZipArchive(raw, file: "tiny.sog")
        for e in zip.entries { entries[e.name] = try zip.contents(of: e, limits: DecodeLimits()).withBytes { Array($0) } }
    }
    let removed = entries.removeValue(forKey: "meta.json")
    let metaBytes = try #require(removed)
    let parsed = try JSONSerialization.jsonObject(with: Data(metaBytes))
    let meta = try #require(parsed as? [String: Any])
    return (meta, entries)
}

/// A bundle of `meta` (JSON-serialised, or raw bytes) and `images`, each entry stored with a
/// data descriptor as splat-transform writes them, or deflated.
private func bundle(meta: Any, images: [String: [UInt8]], method: UInt16 = 0) throws -> [UInt8] {
    let metaBytes: [UInt8]
    if let raw = meta as? [UInt8] {
        metaBytes = raw
    } else {
        metaBytes = Array(try JSONSerialization.data(withJSONObject: meta))
    }
    var items = [TestZipWriter.Item(name: "meta.json", data: metaBytes, method: method, dataDescriptor: true)]
    for name in images.keys.sorted() {
        items.append(.init(name: name, data: images[name]!, method: method, dataDescriptor: true))
    }
    return TestZipWriter.build(items)
}

private func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> Result<DecodedScene, SplatError> {
    bytes.withUnsafeBytes { raw in
        do throws(SplatError) { return .success(try SOGDecoder.decode(.bundle(raw, name: "test.sog"), limits: limits)) } catch { return .failure(error) }
    }
}

private func readHeader(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> Result<SceneHeader, SplatError> {
    bytes.withUnsafeBytes { raw in
        do throws(SplatError) { return .success(try SOGDecoder.readHeader(.bundle(raw, name: "test.sog"), limits: limits)) } catch { return .failure(error) }
    }
}

private func kind<T>(_ r: Result<T, SplatError>) -> SplatErrorKind? {
    if case .failure(let e) = r { return e.kind }
    return nil
}

/// `meta` with `value` set at a dotted key path ("shN.bands"); nil removes the key.
private func setting(_ meta: [String: Any], _ path: String, _ value: Any?) -> [String: Any] {
    var copy = meta
    let parts = path.split(separator: ".").map(String.init)
    if parts.count == 1 {
        copy[parts[0]] = value
    } else {
        copy[parts[0]] = setting(copy[parts[0]] as? [String: Any] ?? [:], parts.dropFirst().joined(separator: "."), value)
    }
    return copy
}

/// A WebP file holding only a lossless (VP8L) header that declares `width × height`: enough for
/// `WebPGetInfo`, far too little to decode.
private func vp8lHeaderOnly(width: Int, height: Int) -> [UInt8] {
    func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> UInt32(8 * $0)) & 0xFF) } }
    let bits = UInt32(width - 1) | UInt32(height - 1) << 14 | 1 << 28
    let payload: [UInt8] = [0x2F] + u32(bits) + [0, 0, 0, 0, 0, 0, 0]
    let chunk = Array("VP8L".utf8) + u32(UInt32(payload.count)) + payload
    return Array("RIFF".utf8) + u32(UInt32(4 + chunk.count)) + Array("WEBP".utf8) + chunk
}

/// A 4×4 lossy (VP8) WebP written by Pillow, solid colour (100, 150, 200).
private let lossyWebP4x4: [UInt8] = {
    let hex = "52494646320000005745425056503820260000009001009d012a0400040002c04c25a00274ba00039800fec0cff140291c39df9bec7b4c000000"
    var out: [UInt8] = []
    var i = hex.startIndex
    while i < hex.endIndex {
        let j = hex.index(i, offsetBy: 2)
        out.append(UInt8(hex[i..<j], radix: 16)!)
        i = j
    }
    return out
}()

/// Runs `vectors/splat_ref.py` (the independent Python decoder) on `path` for a sample of
/// splats: all of them up to 150, else the first, middle and last 50. Returns the indices and
/// the decoded splats in the same order.
private enum PythonReference {
    static let available: Bool = {
        run(["-c", "import zstandard, PIL.features; assert PIL.features.check('webp')"]) != nil
    }()

    static let script = """
    import builtins, json, sys
    sys.path.insert(0, sys.argv[1])
    import splat_ref
    def sample(n):
        if n <= 150:
            return list(builtins.range(n))
        mid = n // 2 - 25
        return list(builtins.range(50)) + list(builtins.range(mid, mid + 50)) + list(builtins.range(n - 50, n))
    # Only the per-splat loop calls range() with a bound above 150: make it visit the sample.
    def patched(*args):
        if len(args) == 1 and args[0] > 150:
            return sample(args[0])
        return builtins.range(*args)
    splat_ref.range = patched
    r = splat_ref.decode_sog(sys.argv[2])
    r["indices"] = sample(r["num_points"])
    print(json.dumps(r))
    """

    static func run(_ arguments: [String]) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    static func decode(_ path: String) throws -> (indices: [Int], result: [String: Any]) {
        let data = try #require(run(["-c", script, Fixtures.vectors.path, path]), "splat_ref.py failed on \(path)")
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (result["indices"] as! [Int], result)
    }
}

/// Differences between scene splats and reference splats (formats.md 9 JSON shape) at
/// `indices`, rotations compared up to sign.
private func compare(_ scene: SplatScene, indices: [Int], splats: [[String: Any]], tolerance: Double = 1e-5) -> [String] {
    var out: [String] = []
    func close(_ a: Float, _ b: Any?) -> Bool {
        guard let w = (b as? NSNumber)?.doubleValue else { return false }
        return abs(Double(a) - w) <= tolerance
    }
    for (i, s) in zip(indices, splats) {
        let p = s["position"] as! [Any], l = s["scale_log"] as! [Any], d = s["f_dc"] as! [Any], q = s["rotation_wxyz"] as! [Any]
        for a in 0..<3 where !close(scene.position(i)[a], p[a]) { out.append("splat \(i) position[\(a)] \(scene.position(i)[a]) vs \(p[a])") }
        for a in 0..<3 where !close(scene.logScale(i)[a], l[a]) { out.append("splat \(i) logScale[\(a)] \(scene.logScale(i)[a]) vs \(l[a])") }
        for c in 0..<3 where !close(scene.dc(i)[c], d[c]) { out.append("splat \(i) dc[\(c)] \(scene.dc(i)[c]) vs \(d[c])") }
        if !close(scene.alpha[i], s["alpha"]) { out.append("splat \(i) alpha \(scene.alpha[i]) vs \(s["alpha"]!)") }
        let r = scene.rotation(i)
        let same = (0..<4).allSatisfy { close(r[$0], q[$0]) }
        let negated = (0..<4).allSatisfy { close(-r[$0], q[$0]) }
        if !same && !negated { out.append("splat \(i) rotation \(r) vs \(q)") }
        let sh = s["sh"] as? [[Any]] ?? []
        if sh.count != scene.shCoefficientsPerChannel {
            out.append("splat \(i): \(scene.shCoefficientsPerChannel) SH coefficients vs \(sh.count)")
        } else {
            for (k, triple) in sh.enumerated() {
                for c in 0..<3 where !close(scene.shCoefficient(i, k)[c], triple[c]) {
                    out.append("splat \(i) sh[\(k)][\(c)] \(scene.shCoefficient(i, k)[c]) vs \(triple[c])")
                }
            }
        }
        if out.count > 20 { break }
    }
    return out
}

// MARK: - Vectors and corpus

@Suite("SOG decoder")
struct SOGDecoderTests {
    @Test func tinyBundleMatchesExpected() throws {
        let expected = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        let decoded = try SplatFile.decode(path: Fixtures.vector("tiny.sog"))
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty,
                "\(ExpectedSplats.mismatches(decoded.scene, expected: expected))")
        #expect(decoded.scene.count == 3)
        #expect(decoded.scene.model == .antialiased)
        #expect(decoded.scene.conventionalFrame == .rdf)
        #expect(decoded.header.version == 2)
        #expect(decoded.header.shDegree == 1)
        #expect(decoded.header.details["sog_version"] == "2")
        #expect(decoded.header.details["bundled"] == "true")
        #expect(decoded.header.details["texture_size"] == "4x4")
        #expect(decoded.header.details["sh_palette_size"] == "2")
        #expect(decoded.scene.warnings.isEmpty)
    }

    @Test func tinyV1DirectoryMatchesExpected() throws {
        let expected = try #require(try Fixtures.expectedVectors()["tiny-sog-v1/meta.json"])
        for path in [Fixtures.vector("tiny-sog-v1/meta.json"), Fixtures.vector("tiny-sog-v1")] {
            let decoded = try SplatFile.decode(path: path)
            let mismatches = ExpectedSplats.mismatches(decoded.scene, expected: expected)
            #expect(mismatches.isEmpty, "\(path): \(mismatches)")
            #expect(decoded.header.version == 1)
            #expect(decoded.header.details["bundled"] == "false")
            #expect(decoded.scene.model == .default)
        }
    }

    @Test func headersReadMetaOnly() throws {
        let tiny = try SplatFile.readHeader(path: Fixtures.vector("tiny.sog"))
        #expect(tiny.format == .sog && tiny.version == 2 && tiny.count == 3 && tiny.shDegree == 1 && tiny.model == .antialiased)
        #expect(tiny.conventionalFrame == .rdf)
        let v1 = try SplatFile.readHeader(path: Fixtures.vector("tiny-sog-v1/meta.json"))
        #expect(v1.version == 1 && v1.count == 3 && v1.shDegree == 1 && v1.model == .default)

        // Images that could never be decoded do not matter to the header.
        let (meta, images) = try tinyParts()
        let huge = images.mapValues { _ in vp8lHeaderOnly(width: 16383, height: 16383) }
        let header = try readHeader(try bundle(meta: meta, images: huge)).get()
        #expect(header.count == 3 && header.shDegree == 1)
        // … but their decoded size is what a job must budget for.
        #expect(header.decodeScratchBytes >= huge.count * 16383 * 16383 * 4)
    }

    static let corpusSOGs = ["sog/monkey_0001.sog", "sog/playbot-lod4/", "sog/playcanvas-logo-v1/"]

    /// Every SOG in the corpus: count, degree and version as the manifest says.
    @Test(arguments: corpusSOGs)
    func corpusFileMatchesManifest(_ name: String) throws {
        let files = try Fixtures.manifest()["files"] as! [[String: Any]]
        let entry = try #require(files.first { ($0["file"] as? String) == name })
        let path = Fixtures.corpusFile(name)
        let header = try SplatFile.readHeader(path: path)
        let decoded = try SplatFile.decode(path: path)
        #expect(header.count == entry["splat_count"] as? Int)
        #expect(header.shDegree == entry["sh_degree"] as? Int)
        #expect(header.version == entry["format_version"] as? Int)
        #expect(header.details["bundled"] == (name.hasSuffix(".sog") ? "true" : "false"))
        #expect(decoded.scene.count == entry["splat_count"] as? Int)
        #expect(decoded.scene.shDegree == entry["sh_degree"] as? Int)
    }

    /// A sample of every corpus SOG (first, middle and last 50 splats) equals the independent
    /// Python decode. Needs python3 with zstandard and Pillow (WebP); skipped otherwise.
    @Test(.enabled(if: PythonReference.available, "python3 with zstandard and Pillow (WebP) is needed"),
          arguments: corpusSOGs)
    func corpusFileMatchesPythonReference(_ name: String) throws {
        let path = Fixtures.corpusFile(name)
        let decoded = try SplatFile.decode(path: path)
        let refPath = name.hasSuffix("/") ? (path as NSString).appendingPathComponent("meta.json") : path
        let (indices, reference) = try PythonReference.decode(refPath)
        #expect(reference["num_points"] as? Int == decoded.scene.count)
        #expect(reference["sh_degree"] as? Int == decoded.scene.shDegree)
        let splats = reference["splats"] as! [[String: Any]]
        #expect(splats.count == indices.count && indices.count == min(150, decoded.scene.count))
        let diffs = compare(decoded.scene, indices: indices, splats: splats)
        #expect(diffs.isEmpty, "\(diffs)")
    }

    @Test func deflatedBundleDecodesLikeStored() throws {
        let (meta, images) = try tinyParts()
        let stored = try decode(try bundle(meta: meta, images: images)).get()
        let deflated = try decode(try bundle(meta: meta, images: images, method: 8)).get()
        let expected = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        #expect(ExpectedSplats.mismatches(stored.scene, expected: expected).isEmpty)
        #expect(ExpectedSplats.mismatches(deflated.scene, expected: expected).isEmpty)
    }

    @Test func maxShDegreeDropsBands() throws {
        var limits = DecodeLimits()
        limits.maxShDegree = 0
        let decoded = try SplatFile.decode(path: Fixtures.vector("tiny.sog"), limits: limits)
        #expect(decoded.scene.shDegree == 0)
        #expect(decoded.header.shDegree == 1)  // the file's degree
        let original = try #require(try Fixtures.expectedVectors()["tiny.sog"])
        var expected = original
        expected["sh_degree"] = 0
        expected["splats"] = (expected["splats"] as! [[String: Any]]).map { var s = $0; s["sh"] = nil; return s }
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty)
    }

    // MARK: - Codebooks and meta

    @Test func nullFirstCodebookEntryIsRepairedWithWarning() throws {
        let (meta, images) = try tinyParts()
        var book = (meta["scales"] as! [String: Any])["codebook"] as! [Any]
        let c1 = (book[1] as! NSNumber).doubleValue, c255 = (book[255] as! NSNumber).doubleValue
        book[0] = NSNull()
        let decoded = try decode(try bundle(meta: setting(meta, "scales.codebook", book), images: images)).get()
        // tiny splat 0 has scale byte 0 on x.
        #expect(abs(Double(decoded.scene.logScaleX[0]) - (c1 - (c255 - c1) / 255)) < 1e-6)
        #expect(decoded.scene.warnings.contains { $0.contains("scales.codebook[0] was null") })
        #expect(decoded.header.warnings == decoded.scene.warnings)
    }

    @Test func badCodebooksAreBadMeta() throws {
        let (meta, images) = try tinyParts()
        let book = (meta["sh0"] as! [String: Any])["codebook"] as! [Any]
        var nullInside = book
        nullInside[7] = NSNull()
        var stringInside = book
        stringInside[3] = "1.0"
        let variants: [Any] = [[Any](repeating: NSNull(), count: 256), Array(book.dropLast()), nullInside, stringInside, 5]
        for v in variants {
            #expect(kind(decode(try bundle(meta: setting(meta, "sh0.codebook", v), images: images))) == .badMeta)
        }
    }

    @Test func metaErrors() throws {
        let (meta, images) = try tinyParts()
        let cases: [(String, Any?, SplatErrorKind)] = [
            ("count", 0, .badMeta), ("count", "3", .badMeta), ("count", 3.5, .badMeta), ("count", nil, .badMeta),
            ("count", true, .badMeta), ("version", 3, .unsupportedVersion), ("quats", nil, .badMeta),
            ("means.mins", [0, 0], .badMeta), ("shN.bands", 4, .badMeta), ("shN.bands", 0, .badMeta),
            ("shN.count", 0, .badMeta), ("means.files", ["means_l.webp"], .badMeta),
        ]
        for (path, value, expected) in cases {
            let result = decode(try bundle(meta: setting(meta, path, value), images: images))
            #expect(kind(result) == expected, "\(path) = \(String(describing: value))")
        }
        #expect(kind(decode(try bundle(meta: Array("{\"version\": 2, ".utf8), images: images))) == .badMeta)
        #expect(kind(decode(try bundle(meta: Array("[1, 2]".utf8), images: images))) == .badMeta)
        var limits = DecodeLimits()
        limits.maxMetaJsonBytes = 1000
        #expect(kind(decode(try bundle(meta: meta, images: images), limits: limits)) == .tooLarge)
    }

    @Test func unsafeFileNamesAreBadMeta() throws {
        let (meta, images) = try tinyParts()
        for name in ["../quats.webp", "/tmp/quats.webp", "https://example.com/quats.webp", "sub/../../quats.webp", "C:\\quats.webp", ""] {
            let result = decode(try bundle(meta: setting(meta, "quats.files", [name]), images: images))
            #expect(kind(result) == .badMeta, "name \(name)")
        }
    }

    @Test func modelKeys() throws {
        let (meta, images) = try tinyParts()
        let twoD = try decode(try bundle(meta: setting(meta, "model", "2dgs"), images: images)).get()
        #expect(twoD.scene.model == .twoDGS)
        let unknown = try decode(try bundle(meta: setting(setting(meta, "model", "gaussian-x"), "antialias", true), images: images)).get()
        #expect(unknown.scene.model == .antialiased)
        #expect(unknown.scene.warnings.contains { $0.contains("gaussian-x") })
        let plain = try decode(try bundle(meta: setting(meta, "model", nil), images: images)).get()
        #expect(plain.scene.model == .default)
        let flag = try decode(try bundle(meta: setting(setting(meta, "model", nil), "antialias", true), images: images)).get()
        #expect(flag.scene.model == .antialiased)
    }

    // MARK: - Images

    @Test func textureErrors() throws {
        let (meta, images) = try tinyParts()
        // count beyond the 4×4 pixels.
        #expect(kind(decode(try bundle(meta: setting(meta, "count", 17), images: images))) == .badTexture)
        // A per-splat image of another size (the 192×1 centroids as quats).
        var swapped = images
        swapped["quats.webp"] = images["shN_centroids.webp"]
        #expect(kind(decode(try bundle(meta: meta, images: swapped))) == .badTexture)
        // Centroids 192 wide cannot hold 2 bands (512).
        #expect(kind(decode(try bundle(meta: setting(meta, "shN.bands", 2), images: images))) == .badTexture)
        // Labels are 0, 1, 1: a palette of one entry is too small.
        let small = decode(try bundle(meta: setting(meta, "shN.count", 1), images: images))
        #expect(kind(small) == .badTexture)
        if case .failure(let e) = small { #expect(e.message.contains("splat 1")) }
    }

    @Test func missingAndForeignFiles() throws {
        let (meta, images) = try tinyParts()
        var withoutMeta = [TestZipWriter.Item]()
        for (name, data) in images { withoutMeta.append(.init(name: name, data: data)) }
        #expect(kind(decode(TestZipWriter.build(withoutMeta))) == .truncated)
        #expect(kind(readHeader(TestZipWriter.build(withoutMeta))) == .truncated)

        var missing = images
        missing["quats.webp"] = nil
        #expect(kind(decode(try bundle(meta: meta, images: missing))) == .truncated)

        var png = images
        png["quats.webp"] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40)
        #expect(kind(decode(try bundle(meta: meta, images: png))) == .unsupported)

        var cut = images
        cut["quats.webp"] = Array(images["quats.webp"]!.prefix(34))
        #expect(kind(decode(try bundle(meta: meta, images: cut))) == .corrupt)
    }

    @Test func directoryWithMissingImageIsTruncated() throws {
        let dir = try Fixtures.temporaryDirectory("sog")
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = Fixtures.vectors.appendingPathComponent("tiny-sog-v1")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name != "sh0.webp" {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: dir.appendingPathComponent(name))
        }
        #expect(throws: SplatError.self) { try SplatFile.decode(path: dir.path) }
        do {
            _ = try SplatFile.decode(path: dir.path)
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.file?.hasSuffix("sh0.webp") == true)
        }
    }

    @Test func hugeImagesAreRefusedBeforeAllocation() throws {
        let (meta, images) = try tinyParts()
        // 16383² · 4 bytes is over the 768 MiB ceiling; 16384 is over WebP's side limit.
        for side in [16383, 16384] {
            var huge = images
            for name in ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp"] {
                huge[name] = vp8lHeaderOnly(width: side, height: side)
            }
            let result = decode(try bundle(meta: meta, images: huge))
            #expect(kind(result) == .tooLarge, "side \(side)")
        }
        // Each 8000² image fits alone (256 MB) but five of them do not.
        var five = images
        for name in ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp"] {
            five[name] = vp8lHeaderOnly(width: 8000, height: 8000)
        }
        let result = decode(try bundle(meta: setting(meta, "shN", nil), images: five))
        #expect(kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("decoded images")) }
        // A small ceiling refuses even the 4×4 images (64 bytes each) after the scene fits.
        #expect(kind(decode(try bundle(meta: setting(meta, "shN", nil), images: images), limits: DecodeLimits(maxDecodedBytes: 200))) == .tooLarge)
    }

    @Test func inflatedEntriesAreBoundedTogether() throws {
        let (meta, images) = try tinyParts()
        var items = [TestZipWriter.Item(name: "meta.json", data: Array(try JSONSerialization.data(withJSONObject: meta)))]
        for (name, data) in images.sorted(by: { $0.key < $1.key }) { items.append(.init(name: name, data: data, method: 8)) }
        let total = images.values.map(\.count).reduce(0, +)
        #expect(images.values.allSatisfy { $0.count < 300 } && total > 300)
        // The scene (276 bytes) and each entry fit under 300 bytes; the seven entries together do not.
        let result = decode(TestZipWriter.build(items), limits: DecodeLimits(maxDecodedBytes: 300))
        #expect(kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("inflated image entries")) }
    }

    @Test func sceneCeilingIsCheckedFirst() throws {
        let result = decode(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny.sog")))),
                            limits: DecodeLimits(maxDecodedBytes: 100))
        #expect(kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("decoded scene")) }
    }

    @Test func lossyImageIsAWarning() throws {
        let (meta, images) = try tinyParts()
        var lossy = images
        lossy["scales.webp"] = lossyWebP4x4
        let decoded = try decode(try bundle(meta: meta, images: lossy)).get()
        #expect(decoded.scene.warnings.contains { $0.contains("scales.webp is lossy") })
        // Solid (100, 150, 200) after lossy coding: near, not necessarily equal.
        let book = ((meta["scales"] as! [String: Any])["codebook"] as! [NSNumber]).map(\.floatValue)
        #expect(abs(decoded.scene.logScaleX[0] - book[100]) < 0.5)
    }

    @Test func quaternionTagOutsideRangeIsIdentityWithWarning() throws {
        let (meta, images) = try tinyParts()
        var tagged = images
        tagged["quats.webp"] = images["sh0.webp"]  // alphas 255, 0, 128
        let decoded = try decode(try bundle(meta: meta, images: tagged)).get()
        #expect(decoded.scene.rotation(1) == SIMD4(1, 0, 0, 0))
        #expect(decoded.scene.rotation(2) == SIMD4(1, 0, 0, 0))
        #expect(decoded.scene.warnings.contains { $0.contains("2 splat(s)") && $0.contains("first: splat 1") })
        // Splat 0: bytes (0, 128, 255) with tag 255 → w, x, y stored, z reconstructed.
        let a = Float((0.0 / 255 - 0.5) * 2.0.squareRoot()), b = Float((128.0 / 255 - 0.5) * 2.0.squareRoot())
        let c = Float((255.0 / 255 - 0.5) * 2.0.squareRoot())
        var q = SIMD4<Float>(a, b, c, max(0, 1 - a * a - b * b - c * c).squareRoot())
        q /= (q * q).sum().squareRoot()
        let r = decoded.scene.rotation(0)
        #expect((0..<4).allSatisfy { abs(r[$0] - q[$0]) < 1e-6 }, "\(r) vs \(q)")
    }
}
