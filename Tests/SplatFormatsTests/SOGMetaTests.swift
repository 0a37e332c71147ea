import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// meta.json: codebooks, required keys and values, file names, model keys.
extension SOGDecoderTests {
    @Test func nullFirstCodebookEntryIsRepairedWithWarning() throws {
        let (meta, images) = try Self.tinyParts()
        var book = (meta["scales"] as! [String: Any])["codebook"] as! [Any]
        let c1 = (book[1] as! NSNumber).doubleValue, c255 = (book[255] as! NSNumber).doubleValue
        book[0] = NSNull()
        let decoded = try Self.decode(try Self.bundle(meta: Self.setting(meta, "scales.codebook", book), images: images)).get()
        // tiny splat 0 has scale byte 0 on x.
        #expect(abs(Double(decoded.scene.logScaleX[0]) - (c1 - (c255 - c1) / 255)) < 1e-6)
        #expect(decoded.scene.warnings.contains { $0.contains("scales.codebook[0] was null") })
        #expect(decoded.header.warnings == decoded.scene.warnings)
    }

    @Test func badCodebooksAreBadMeta() throws {
        let (meta, images) = try Self.tinyParts()
        let book = (meta["sh0"] as! [String: Any])["codebook"] as! [Any]
        var nullInside = book
        nullInside[7] = NSNull()
        var stringInside = book
        stringInside[3] = "1.0"
        let variants: [Any] = [[Any](repeating: NSNull(), count: 256), Array(book.dropLast()), nullInside, stringInside, 5]
        for v in variants {
            #expect(Self.kind(Self.decode(try Self.bundle(meta: Self.setting(meta, "sh0.codebook", v), images: images))) == .badMeta)
        }
    }

    @Test func metaErrors() throws {
        let (meta, images) = try Self.tinyParts()
        let cases: [(String, Any?, SplatErrorKind)] = [
            ("count", 0, .badMeta), ("count", "3", .badMeta), ("count", 3.5, .badMeta), ("count", nil, .badMeta),
            ("count", true, .badMeta), ("version", 3, .unsupportedVersion), ("quats", nil, .badMeta),
            ("means.mins", [0, 0], .badMeta), ("shN.bands", 4, .badMeta), ("shN.bands", 0, .badMeta),
            ("shN.count", 0, .badMeta), ("means.files", ["means_l.webp"], .badMeta),
        ]
        for (path, value, expected) in cases {
            let result = Self.decode(try Self.bundle(meta: Self.setting(meta, path, value), images: images))
            #expect(Self.kind(result) == expected, "\(path) = \(String(describing: value))")
        }
        #expect(Self.kind(Self.decode(try Self.bundle(meta: Array("{\"version\": 2, ".utf8), images: images))) == .badMeta)
        #expect(Self.kind(Self.decode(try Self.bundle(meta: Array("[1, 2]".utf8), images: images))) == .badMeta)
        var limits = DecodeLimits()
        limits.maxMetaJsonBytes = 1000
        #expect(Self.kind(Self.decode(try Self.bundle(meta: meta, images: images), limits: limits)) == .tooLarge)
    }

    /// meta.json goes through the bounded `JSONParser`: strict RFC 8259 (no NaN, no trailing
    /// bytes, bounded nesting), a leading UTF-8 byte order mark skipped with a warning, and
    /// numbers that overflow a Double are not finite.
    @Test func metaJSONIsParsedStrictlyAndBounded() throws {
        let (meta, images) = try Self.tinyParts()
        let text = [UInt8](try JSONSerialization.data(withJSONObject: meta))
        let plain = try Self.decode(try Self.bundle(meta: text, images: images)).get()
        let marked = try Self.decode(try Self.bundle(meta: [0xEF, 0xBB, 0xBF] + text, images: images)).get()
        #expect(marked.scene.count == plain.scene.count)
        #expect(Array(marked.scene.x) == Array(plain.scene.x) && Array(marked.scene.logScaleZ) == Array(plain.scene.logScaleZ))
        #expect(marked.scene.warnings == plain.scene.warnings + ["meta.json starts with a UTF-8 byte order mark; skipped"])
        let string = String(decoding: text, as: UTF8.self)
        let hostile: [(String, String)] = [
            ("NaN literal", string.replacingOccurrences(of: "\"count\":", with: "\"nan\":NaN,\"count\":")),
            ("trailing bytes", string + "}"),
            ("nested 100 deep", string.replacingOccurrences(of: "\"count\":", with: "\"deep\":" + String(repeating: "[", count: 100)
                + String(repeating: "]", count: 100) + ",\"count\":")),
            ("overflowing number", Self.replacingArray("mins", in: string, with: "[1e400,0,0]")),
        ]
        let version = Self.decode(try Self.bundle(meta: Self.setting(meta, "version", 3), images: images))
        guard case .failure(let refusal) = version else { Issue.record("version 3 decoded"); return }
        #expect(refusal.kind == .unsupportedVersion && refusal.message.contains("version 3 is not supported"), "\(refusal.message)")
        let model = try Self.decode(try Self.bundle(meta: Self.setting(meta, "model", "gaussian\n"), images: images)).get()
        #expect(model.scene.warnings.contains("unknown SOG model \"gaussian\\x0A\" ignored"), "\(model.scene.warnings)")
        for (name, json) in hostile {
            #expect(json != string, "\(name): the mutation must apply")
            #expect(Self.kind(Self.decode(try Self.bundle(meta: Array(json.utf8), images: images))) == .badMeta, "\(name)")
        }
    }

    /// `json` with the first array under `key` replaced by `array` (unchanged when there is none).
    static func replacingArray(_ key: String, in json: String, with array: String) -> String {
        guard let start = json.range(of: "\"\(key)\":["),
              let end = json[start.upperBound...].firstIndex(of: "]") else { return json }
        return json.replacingCharacters(in: start.upperBound..<json.index(after: end), with: array.dropFirst())
    }

    @Test func unsafeFileNamesAreBadMeta() throws {
        let (meta, images) = try Self.tinyParts()
        for name in ["../quats.webp", "/tmp/quats.webp", "https://example.com/quats.webp", "sub/../../quats.webp", "C:\\quats.webp", ""] {
            let result = Self.decode(try Self.bundle(meta: Self.setting(meta, "quats.files", [name]), images: images))
            #expect(Self.kind(result) == .badMeta, "name \(name)")
        }
    }

    @Test func modelKeys() throws {
        let (meta, images) = try Self.tinyParts()
        let twoD = try Self.decode(try Self.bundle(meta: Self.setting(meta, "model", "2dgs"), images: images)).get()
        #expect(twoD.scene.model == .twoDGS)
        let unknown = try Self.decode(try Self.bundle(meta: Self.setting(Self.setting(meta, "model", "gaussian-x"), "antialias", true), images: images)).get()
        #expect(unknown.scene.model == .antialiased)
        #expect(unknown.scene.warnings.contains { $0.contains("gaussian-x") })
        let plain = try Self.decode(try Self.bundle(meta: Self.setting(meta, "model", nil), images: images)).get()
        #expect(plain.scene.model == .default)
        let flag = try Self.decode(try Self.bundle(meta: Self.setting(Self.setting(meta, "model", nil), "antialias", true), images: images)).get()
        #expect(flag.scene.model == .antialiased)
    }
}
