import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// Bundles built from `vectors/tiny.sog`'s parts, with one thing changed per test, and the
/// decode calls the suite reads them with.
extension SOGDecoderTests {
    /// The meta.json (parsed) and the images of `vectors/tiny.sog`, for building variants.
    static func tinyParts() throws -> (meta: [String: Any], images: [String: [UInt8]]) {
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
    static func bundle(meta: Any, images: [String: [UInt8]], method: UInt16 = 0) throws -> [UInt8] {
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

    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> Result<DecodedScene, SplatError> {
        bytes.withUnsafeBytes { raw in
            do throws(SplatError) { return .success(try SOGDecoder.decode(.bundle(raw, name: "test.sog"), limits: limits)) } catch { return .failure(error) }
        }
    }

    static func readHeader(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) -> Result<SceneHeader, SplatError> {
        bytes.withUnsafeBytes { raw in
            do throws(SplatError) { return .success(try SOGDecoder.readHeader(.bundle(raw, name: "test.sog"), limits: limits)) } catch { return .failure(error) }
        }
    }

    static func kind<T>(_ r: Result<T, SplatError>) -> SplatErrorKind? {
        if case .failure(let e) = r { return e.kind }
        return nil
    }

    /// `meta` with `value` set at a dotted key path ("shN.bands"); nil removes the key.
    static func setting(_ meta: [String: Any], _ path: String, _ value: Any?) -> [String: Any] {
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
    static func vp8lHeaderOnly(width: Int, height: Int) -> [UInt8] {
        func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> UInt32(8 * $0)) & 0xFF) } }
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14 | 1 << 28
        let payload: [UInt8] = [0x2F] + u32(bits) + [0, 0, 0, 0, 0, 0, 0]
        let chunk = Array("VP8L".utf8) + u32(UInt32(payload.count)) + payload
        return Array("RIFF".utf8) + u32(UInt32(4 + chunk.count)) + Array("WEBP".utf8) + chunk
    }

    /// A 4×4 lossy (VP8) WebP written by Pillow, solid colour (100, 150, 200).
    static let lossyWebP4x4: [UInt8] = {
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
}
