import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

/// Hostile glTF (formats-gltf.md 16.2): targeted edits of a valid file's JSON, each with the
/// kind the spec names, and resource bombs that must be refused before anything large is
/// allocated. Everything runs under a 64 MiB ceiling (1 MiB for the bombs).
@Suite struct GLTFHostileInputTests {
    static let limits = DecodeLimits(maxDecodedBytes: 64 << 20)

    /// A GLB's JSON (as Foundation objects) and BIN chunk, and the way back.
    struct GLB {
        var json: [String: Any]
        var bin: [UInt8]

        init(_ bytes: [UInt8]) throws {
            let length = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
            json = try JSONSerialization.jsonObject(with: Data(bytes[20..<(20 + length)])) as! [String: Any]
            let binStart = 20 + length
            let binLength = Int(bytes[binStart]) | Int(bytes[binStart + 1]) << 8 | Int(bytes[binStart + 2]) << 16
            bin = Array(bytes[(binStart + 8)..<(binStart + 8 + binLength)])
        }

        static func chunk(_ type: UInt32, _ body: [UInt8], pad: UInt8) -> [UInt8] {
            let padded = body + [UInt8](repeating: pad, count: (4 - body.count % 4) % 4)
            return withUnsafeBytes(of: UInt32(padded.count).littleEndian, Array.init) + withUnsafeBytes(of: type.littleEndian, Array.init) + padded
        }

        static func file(jsonText: [UInt8], bin: [UInt8]) -> [UInt8] {
            let body = chunk(0x4E4F_534A, jsonText, pad: 0x20) + chunk(0x004E_4942, bin, pad: 0)
            return Array("glTF".utf8) + [2, 0, 0, 0] + withUnsafeBytes(of: UInt32(12 + body.count).littleEndian, Array.init) + body
        }

        var bytes: [UInt8] {
            Self.file(jsonText: Array(try! JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])), bin: bin)
        }
    }

    static func decode(_ bytes: [UInt8], name: String = "hostile.glb", limits: DecodeLimits = limits) -> Result<DecodedScene, SplatError> {
        bytes.withUnsafeBytes { raw in
            let input = InputBytes(copying: raw, name: name)
            do throws(SplatError) { return .success(try SplatFile.decode(input, limits: limits)) } catch { return .failure(error) }
        }
    }

    static func kind(_ r: Result<DecodedScene, SplatError>) -> String {
        switch r {
        case .success: "ok"
        case .failure(let e): e.kind.rawValue
        }
    }

    typealias Edit = (label: String, kind: String, apply: (inout [String: Any]) -> Void)

    /// JSON edits of `minimal.glb` and the kind each must give.
    static var edits: [Edit] {
        func accessor(_ i: Int, _ key: String, _ value: Any?) -> (inout [String: Any]) -> Void {
            { json in var a = json["accessors"] as! [[String: Any]]; a[i][key] = value; json["accessors"] = a }
        }
        func view(_ i: Int, _ key: String, _ value: Any?) -> (inout [String: Any]) -> Void {
            { json in var v = json["bufferViews"] as! [[String: Any]]; v[i][key] = value; json["bufferViews"] = v }
        }
        func nodes(_ value: [[String: Any]], scene: [Int] = [0]) -> (inout [String: Any]) -> Void {
            { json in json["nodes"] = value; json["scenes"] = [["nodes": scene]] }
        }
        return [
            ("count 2^31", "too_large", accessor(0, "count", 2_147_483_648)),
            ("count 2^53 + 2", "bad_meta", accessor(0, "count", 9_007_199_254_740_994.0)),
            ("count 1.5", "bad_meta", accessor(0, "count", 1.5)),
            ("count as 2.0 is an integer", "ok", accessor(0, "count", 2.0)),
            ("count 0", "bad_meta", accessor(0, "count", 0)),
            ("count 3 vs POSITION 2", "bad_meta", accessor(1, "count", 3)),
            ("componentType 5124", "bad_meta", accessor(0, "componentType", 5124)),
            ("type MAT4", "bad_meta", accessor(0, "type", "MAT4")),
            ("normalized float", "bad_meta", accessor(0, "normalized", true)),
            ("rotation as u8", "bad_meta", accessor(1, "componentType", 5121)),
            ("accessor byteOffset past the view", "bad_meta", accessor(0, "byteOffset", 4)),
            ("bufferView index 99", "bad_meta", accessor(0, "bufferView", 99)),
            ("bufferView -1", "bad_meta", accessor(0, "bufferView", -1)),
            ("view past the buffer", "bad_meta", view(4, "byteLength", 1 << 40)),
            ("view offset 2^62", "bad_meta", view(0, "byteOffset", 4_611_686_018_427_387_904)),
            ("byteStride 3", "bad_meta", view(0, "byteStride", 3)),
            ("byteStride 256", "bad_meta", view(0, "byteStride", 256)),
            ("byteStride 8 < element 12", "bad_meta", view(0, "byteStride", 8)),
            ("byteStride 252 runs past", "bad_meta", view(0, "byteStride", 252)),
            ("buffer byteLength 2^40", "too_large", { json in json["buffers"] = [["byteLength": 1 << 40]] }),
            ("buffer byteLength past BIN", "truncated", { json in json["buffers"] = [["byteLength": 116]] }),
            ("no buffers", "bad_meta", { json in json["buffers"] = [] }),
            ("node matrix and TRS", "bad_meta", nodes([["mesh": 0, "matrix": Array(repeating: 1.0, count: 16), "scale": [1, 1, 1]]])),
            ("node matrix of 15", "bad_meta", nodes([["mesh": 0, "matrix": Array(repeating: 1.0, count: 15)]])),
            ("node its own child", "bad_meta", nodes([["mesh": 0, "children": [0]]])),
            ("node with two parents", "bad_meta", nodes([["children": [2]], ["children": [2]], ["mesh": 0]], scene: [0, 1])),
            ("root with a parent", "bad_meta", nodes([["children": [1]], ["mesh": 0]], scene: [1])),
            ("cycle below a root", "bad_meta", nodes([["children": [1]], ["children": [2]], ["children": [1], "mesh": 0]])),
            ("zero rotation", "bad_meta", nodes([["mesh": 0, "rotation": [0, 0, 0, 0]]])),
            ("mesh index 5", "bad_meta", nodes([["mesh": 5]])),
            ("scene index 3", "bad_meta", { json in json["scene"] = 3 }),
            ("deep hierarchy", "bad_meta", nodes((0..<300).map { $0 < 299 ? ["children": [$0 + 1]] : ["mesh": 0] })),
            ("required draco", "unsupported", { json in json["extensionsRequired"] = ["KHR_draco_mesh_compression"] }),
            ("asset 3.0", "unsupported_version", { json in json["asset"] = ["version": "3.0"] }),
            ("minVersion 2.1", "unsupported_version", { json in json["asset"] = ["version": "2.0", "minVersion": "2.1"] }),
            ("asset version 02.0", "bad_meta", { json in json["asset"] = ["version": "02.0"] }),
            ("no asset", "bad_meta", { json in json["asset"] = nil }),
            ("no meshes", "not_gaussian", { json in json["meshes"] = [] }),
            ("indexed primitive", "unsupported", { json in
                var m = json["meshes"] as! [[String: Any]]
                var p = m[0]["primitives"] as! [[String: Any]]
                p[0]["indices"] = 0
                m[0]["primitives"] = p
                json["meshes"] = m
            }),
            ("sparse count above count", "bad_meta", accessor(3, "sparse", ["count": 3, "indices": ["bufferView": 3, "componentType": 5121],
                                                                             "values": ["bufferView": 3]])),
            ("sparse decreasing indices", "bad_meta", accessor(3, "sparse", ["count": 2, "indices": ["bufferView": 0, "componentType": 5121, "byteOffset": 6],
                                                                              "values": ["bufferView": 3]])),
        ]
    }

    @Test func jsonEditsGiveTheirKinds() throws {
        let base = Array(try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("minimal.glb"))))
        for edit in Self.edits {
            var glb = try GLB(base)
            edit.apply(&glb.json)
            let result = Self.decode(glb.bytes)
            #expect(Self.kind(result) == edit.kind, "\(edit.label): \(result)")
        }
    }

    /// A buffer's `uri` (formats-gltf.md 16.2): a relative path inside the file's folder or a
    /// base64 data URI; anything else is refused with the kind the spec names.
    @Test(arguments: [
        ("../minimal.glb", "bad_meta"),
        ("/etc/hostname", "bad_meta"),
        ("%2E%2E/x.bin", "bad_meta"),
        ("http://example.com/x.bin", "unsupported"),
        ("file:///etc/hostname", "unsupported"),
        ("C:/x.bin", "unsupported"),
        ("//host/x.bin", "unsupported"),
        ("x.bin?a=1", "unsupported"),
        // Percent-decodes to bytes that are not UTF-8.
        ("%FF%FE.bin", "bad_meta"),
        // A plain name, but the decoded input has no folder to resolve it in.
        ("x.bin", "bad_meta"),
        ("data:application/octet-stream,AAAA", "unsupported"),
        ("data:application/octet-stream;base64,AA=A", "corrupt"),
        // Valid base64, three bytes where the buffer declares 112.
        ("data:application/octet-stream;base64,AAAA", "truncated"),
    ])
    func bufferURIsGiveTheirKinds(uri: String, kind: String) throws {
        var glb = try GLB(Array(try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("minimal.glb")))))
        glb.json["buffers"] = [["byteLength": 112, "uri": uri]]
        let result = Self.decode(glb.bytes)
        #expect(Self.kind(result) == kind, "\(uri): \(result)")
    }

    @Test func jsonSyntaxIsStrict() throws {
        let base = try GLB(Array(try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("minimal.glb")))))
        let text = String(decoding: try JSONSerialization.data(withJSONObject: base.json, options: [.sortedKeys]), as: UTF8.self)
        let cases: [(String, String, String)] = [
            ("NaN literal", text.replacingOccurrences(of: "\"count\":2,", with: "\"count\":2,\"x\":NaN,"), "bad_meta"),
            ("Infinity", text.replacingOccurrences(of: "\"count\":2,", with: "\"count\":2,\"x\":-Infinity,"), "bad_meta"),
            ("trailing comma", text.replacingOccurrences(of: "\"count\":2,", with: "\"count\":2,,"), "bad_meta"),
            ("control character", text.replacingOccurrences(of: "VEC3", with: "VEC\u{01}3"), "bad_meta"),
            ("nesting 65", "{\"asset\":{\"version\":\"2.0\"},\"x\":" + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}", "bad_meta"),
            ("nesting 100000", String(repeating: "[", count: 100_000), "bad_meta"),
            ("duplicate key, last wins", text.replacingOccurrences(of: "\"count\":2,", with: "\"count\":7,\"count\":2,"), "ok"),
            ("BOM and NUL padding", "\u{FEFF}" + text + "\0\0\0", "ok"),
            ("top level array", "[" + text + "]", "bad_meta"),
            ("escaped keys", text.replacingOccurrences(of: "\"POSITION\"", with: "\"\\u0050OSITION\""), "ok"),
        ]
        for (label, json, kind) in cases {
            let file = GLB.file(jsonText: Array(json.utf8), bin: base.bin)
            let result = Self.decode(file)
            #expect(Self.kind(result) == kind, "\(label): \(result)")
        }
    }

    @Test func bombsAreRefusedBeforeAllocating() throws {
        let small = DecodeLimits(maxDecodedBytes: 1 << 20)
        var glb = try GLB(Array(try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("minimal.glb")))))
        // 100,000 nodes drawing the same mesh: 200,000 instanced splats, over a 1 MiB ceiling.
        glb.json["nodes"] = Array(repeating: ["mesh": 0], count: 100_000)
        glb.json["scenes"] = [["nodes": Array(0..<100_000)]]
        let instanced = Self.decode(glb.bytes, limits: small)
        #expect(Self.kind(instanced) == "too_large", "\(instanced)")
        // A million JSON values under a 1 MiB scene ceiling: the parse budget (64 MiB / 96) is 699,050 values.
        let values = "{\"asset\":{\"version\":\"2.0\"},\"x\":[" + Array(repeating: "0", count: 1_000_000).joined(separator: ",") + "]}"
        let bomb = Self.decode(Array(values.utf8), name: "bomb.gltf", limits: small)
        #expect(Self.kind(bomb) == "too_large")
        // A data URI that would decode past the ceiling is refused from its length.
        let uri = "data:application/octet-stream;base64," + String(repeating: "A", count: 2 << 20)
        let big = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":8,\"uri\":\"\(uri)\"}]," + Self.pointCloudTail
        #expect(Self.kind(Self.decode(Array(big.utf8), name: "big.gltf", limits: small)) == "too_large")
        // JSON over maxMetaJsonBytes.
        var tight = DecodeLimits()
        tight.maxMetaJsonBytes = 1024
        #expect(Self.kind(Self.decode(Array(values.utf8), name: "bomb.gltf", limits: tight)) == "too_large")
    }

    /// An SPZ primitive whose payload is buffer 0, so planning the primitive loads that buffer.
    static let pointCloudTail = """
        "bufferViews":[{"buffer":0,"byteLength":8}],"accessors":[{"componentType":5126,"count":1,"type":"VEC3"}],\
        "meshes":[{"primitives":[{"attributes":{"POSITION":0},"extensions":{"KHR_spz_gaussian_splats_compression":{"bufferView":0}}}]}]}
        """

    @Test func symlinkOutOfTheFolderIsRefused() throws {
        let folder = try Fixtures.temporaryDirectory("gltf-symlink")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outside = try Fixtures.temporaryDirectory("gltf-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("ext-buf.bin"))).write(to: outside.appendingPathComponent("ext-buf.bin"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("ext-buf.bin").path,
                                                   withDestinationPath: outside.appendingPathComponent("ext-buf.bin").path)
        let gltf = try String(contentsOfFile: GLTFExpectations.vector("external-buffer.gltf"), encoding: .utf8)
            .replacingOccurrences(of: "ext%2Dbuf.bin", with: "ext-buf.bin")
        let path = folder.appendingPathComponent("scene.gltf").path
        try gltf.write(toFile: path, atomically: true, encoding: .utf8)
        do throws(SplatError) {
            _ = try SplatFile.decode(path: path)
            Issue.record("a symlink out of the folder was followed")
        } catch {
            #expect(error.kind == .badMeta && error.message.contains("outside"), "\(error)")
        }
        // The same file copied in is read.
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent("ext-buf.bin").path)
        try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("ext-buf.bin"))).write(to: folder.appendingPathComponent("ext-buf.bin"))
        #expect(try SplatFile.decode(path: path).scene.count == 1)
    }
}
