import Foundation
import SplatCore
@testable import SplatFormats
import Testing

/// The pieces under the glTF reader: the bounded JSON parser (formats-gltf.md 11.3), strict
/// base64 for data URIs and the buffer-URI confinement (11.4).
@Suite struct GLTFParsingTests {
    static func parse(_ text: String, maxValues: Int = 1000) -> Result<JSONValue, SplatError> {
        Array(text.utf8).withUnsafeBytes { raw in
            do throws(SplatError) { return .success(try JSONParser.parse(raw, file: nil, maxValues: maxValues)) } catch { return .failure(error) }
        }
    }

    static func kind(_ r: Result<JSONValue, SplatError>) -> String {
        switch r {
        case .success: "ok"
        case .failure(let e): e.kind.rawValue
        }
    }

    @Test func numbersAndIntegers() throws {
        let v = try Self.parse("[100, 100.0, 1e2, 1.5, -0, 9007199254740992, 9007199254740994, 2.5e-3]").get().arrayValue!
        #expect(v.prefix(3).map(\.integerValue) == [100, 100, 100])
        #expect(v[3].integerValue == nil && v[3].numberValue == 1.5)
        #expect(v[4].integerValue == 0)
        #expect(v[5].integerValue == 9_007_199_254_740_992 && v[6].integerValue == nil, "integers up to 2^53")
        #expect(v[7].numberValue == 0.0025)
        for bad in ["01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN", "Infinity", "1e400x"] {
            #expect(Self.kind(Self.parse("[\(bad)]")) == "bad_meta", "\(bad)")
        }
        // A number too large for Double parses as infinity and is no finite number.
        #expect(try Self.parse("[1e400]").get().arrayValue![0].numberValue == nil)
    }

    @Test func stringsAndStructure() throws {
        let o = try Self.parse(#"{"a":"\u00e9\ud83d\ude00\n\/","a":"last","b":[true,false,null]}"#).get().objectValue!
        #expect(o["a"]?.stringValue == "last", "duplicate keys: the last wins")
        let first = try Self.parse(#"["\u00e9\ud83d\ude00\n\/"]"#).get().arrayValue![0].stringValue
        #expect(first == "é😀\n/")
        #expect(o["b"]?.arrayValue?.map(\.boolValue) == [true, false, nil])
        for bad in [#"["\ud83d"]"#, #"["\x"]"#, "[\"a\u{01}b\"]", #"{"a" 1}"#, "{1:2}", "[1,]", "[1 2]", "", "[1] x", "{\"a\":1,}"] {
            #expect(Self.kind(Self.parse(bad)) == "bad_meta", "\(bad)")
        }
        let invalidUTF8: [UInt8] = [0x5B, 0x22, 0xC3, 0x28, 0x22, 0x5D]
        let r = invalidUTF8.withUnsafeBytes { raw -> String in
            do throws(SplatError) { _ = try JSONParser.parse(raw, file: nil, maxValues: 10); return "ok" } catch { return error.kind.rawValue }
        }
        #expect(r == "bad_meta")
    }

    @Test func depthAndValueBudget() {
        let deep = { (n: Int) in String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        #expect(Self.kind(Self.parse(deep(64))) == "ok")
        #expect(Self.kind(Self.parse(deep(65))) == "bad_meta")
        #expect(Self.kind(Self.parse("[" + Array(repeating: "1", count: 999).joined(separator: ",") + "]")) == "ok")
        #expect(Self.kind(Self.parse("[" + Array(repeating: "1", count: 1000).joined(separator: ",") + "]")) == "too_large")
    }

    @Test func base64IsStrict() throws {
        for n in 0..<8 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 37 + 5) }
            let text = bytes.withUnsafeBytes { Base64.encode($0) }
            #expect(text == Array(Data(bytes).base64EncodedString().utf8))
            let back = text.withUnsafeBytes { Base64.decode($0) }
            #expect(back.map { Array($0.bytes) } == bytes)
        }
        func decodes(_ s: String) -> [UInt8]? { Array(s.utf8).withUnsafeBytes { Base64.decode($0).map { Array($0.bytes) } } }
        #expect(decodes("  QUJD\n") == Array("ABC".utf8), "surrounding whitespace is ignored")
        for bad in ["QUJ", "QU=D", "Q===", "QUJD=", "QU JD", "QUJ*", "QQ=A"] { #expect(decodes(bad) == nil, "\(bad)") }
    }

    @Test func bufferURIConfinement() throws {
        let folder = FileManager.default.temporaryDirectory.path
        func kind(_ uri: String, folder: String? = folder) -> String {
            do throws(SplatError) { _ = try GLTFBufferURI.resolve(uri, folder: folder, field: "uri", file: nil); return "ok" } catch { return error.kind.rawValue }
        }
        for uri in ["http://x/y.bin", "file:///etc/passwd", "C:x.bin", "c:/x.bin", "mailto:a", "a+b.c-d:x", "//server/x.bin", "x.bin?v=1", "x.bin#f"] {
            #expect(kind(uri) == "unsupported", "\(uri)")
        }
        for uri in ["../x.bin", "a/../../x.bin", "a\\..\\x.bin", "/etc/passwd", "\\x.bin", "%2e%2e/x.bin", "x%00.bin", "C%3A/x.bin", "%C3%28.bin"] {
            #expect(kind(uri) == "bad_meta", "\(uri)")
        }
        #expect(kind("missing-\(UUID().uuidString).bin") == "truncated")
        #expect(kind("x.bin", folder: nil) == "bad_meta")
        // "a:b" after a slash is a path, not a scheme.
        #expect(kind("dir/a:b.bin") == "truncated")
        #expect(GLTFBufferURI.percentDecoded("ext%2Dbuf%20x.bin") == "ext-buf x.bin")
        #expect(GLTFBufferURI.percentDecoded("100%.bin") == "100%.bin", "a lone % stays")
    }
}
