import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// The WebP images: sizes against meta.json, missing and foreign files, allocation ceilings.
extension SOGDecoderTests {
    @Test func textureErrors() throws {
        let (meta, images) = try Self.tinyParts()
        // count beyond the 4×4 pixels.
        #expect(Self.kind(Self.decode(try Self.bundle(meta: Self.setting(meta, "count", 17), images: images))) == .badTexture)
        // A per-splat image of another size (the 192×1 centroids as quats).
        var swapped = images
        swapped["quats.webp"] = images["shN_centroids.webp"]
        #expect(Self.kind(Self.decode(try Self.bundle(meta: meta, images: swapped))) == .badTexture)
        // Centroids 192 wide cannot hold 2 bands (512).
        #expect(Self.kind(Self.decode(try Self.bundle(meta: Self.setting(meta, "shN.bands", 2), images: images))) == .badTexture)
        // Labels are 0, 1, 1: a palette of one entry is too small.
        let small = Self.decode(try Self.bundle(meta: Self.setting(meta, "shN.count", 1), images: images))
        #expect(Self.kind(small) == .badTexture)
        if case .failure(let e) = small { #expect(e.message.contains("splat 1")) }
    }

    @Test func missingAndForeignFiles() throws {
        let (meta, images) = try Self.tinyParts()
        var withoutMeta = [TestZipWriter.Item]()
        for (name, data) in images { withoutMeta.append(.init(name: name, data: data)) }
        #expect(Self.kind(Self.decode(TestZipWriter.build(withoutMeta))) == .truncated)
        #expect(Self.kind(Self.readHeader(TestZipWriter.build(withoutMeta))) == .truncated)

        var missing = images
        missing["quats.webp"] = nil
        #expect(Self.kind(Self.decode(try Self.bundle(meta: meta, images: missing))) == .truncated)

        var png = images
        png["quats.webp"] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 40)
        #expect(Self.kind(Self.decode(try Self.bundle(meta: meta, images: png))) == .unsupported)

        var cut = images
        cut["quats.webp"] = Array(images["quats.webp"]!.prefix(34))
        #expect(Self.kind(Self.decode(try Self.bundle(meta: meta, images: cut))) == .corrupt)
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
        let (meta, images) = try Self.tinyParts()
        // 16383² · 4 bytes is over the 768 MiB ceiling; 16384 is over WebP's side limit.
        for side in [16383, 16384] {
            var huge = images
            for name in ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp"] {
                huge[name] = Self.vp8lHeaderOnly(width: side, height: side)
            }
            let result = Self.decode(try Self.bundle(meta: meta, images: huge))
            #expect(Self.kind(result) == .tooLarge, "side \(side)")
        }
        // Each 8000² image fits alone (256 MB) but five of them do not.
        var five = images
        for name in ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp"] {
            five[name] = Self.vp8lHeaderOnly(width: 8000, height: 8000)
        }
        let result = Self.decode(try Self.bundle(meta: Self.setting(meta, "shN", nil), images: five))
        #expect(Self.kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("decoded images")) }
        // A small ceiling refuses even the 4×4 images (64 bytes each) after the scene fits.
        #expect(Self.kind(Self.decode(try Self.bundle(meta: Self.setting(meta, "shN", nil), images: images), limits: DecodeLimits(maxDecodedBytes: 200))) == .tooLarge)
    }

    @Test func inflatedEntriesAreBoundedTogether() throws {
        let (meta, images) = try Self.tinyParts()
        var items = [TestZipWriter.Item(name: "meta.json", data: Array(try JSONSerialization.data(withJSONObject: meta)))]
        for (name, data) in images.sorted(by: { $0.key < $1.key }) { items.append(.init(name: name, data: data, method: 8)) }
        let total = images.values.map(\.count).reduce(0, +)
        #expect(images.values.allSatisfy { $0.count < 300 } && total > 300)
        // The scene (276 bytes) and each entry fit under 300 bytes; the seven entries together do not.
        let result = Self.decode(TestZipWriter.build(items), limits: DecodeLimits(maxDecodedBytes: 300))
        #expect(Self.kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("inflated image entries")) }
    }

    @Test func sceneCeilingIsCheckedFirst() throws {
        let result = Self.decode(Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny.sog")))),
                            limits: DecodeLimits(maxDecodedBytes: 100))
        #expect(Self.kind(result) == .tooLarge)
        if case .failure(let e) = result { #expect(e.message.contains("decoded scene")) }
    }

    @Test func lossyImageIsAWarning() throws {
        let (meta, images) = try Self.tinyParts()
        var lossy = images
        lossy["scales.webp"] = Self.lossyWebP4x4
        let decoded = try Self.decode(try Self.bundle(meta: meta, images: lossy)).get()
        #expect(decoded.scene.warnings.contains { $0.contains("scales.webp is lossy") })
        // Solid (100, 150, 200) after lossy coding: near, not necessarily equal.
        let book = ((meta["scales"] as! [String: Any])["codebook"] as! [NSNumber]).map(\.floatValue)
        #expect(abs(decoded.scene.logScaleX[0] - book[100]) < 0.5)
    }

    @Test func quaternionTagOutsideRangeIsIdentityWithWarning() throws {
        let (meta, images) = try Self.tinyParts()
        var tagged = images
        tagged["quats.webp"] = images["sh0.webp"]  // alphas 255, 0, 128
        let decoded = try Self.decode(try Self.bundle(meta: meta, images: tagged)).get()
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
