import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// The glTF writer (formats-gltf.md 15): layout and JSON of the plain and SPZ forms, the values
/// read back by our reader and by `splat_ref.py`, and validation against the JSON schemas.
@Suite struct GLTFEncoderTests {
    static func decode(_ bytes: [UInt8], name: String) throws -> DecodedScene {
        try bytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: name)) }
    }

    /// The JSON document of a `.glb` or `.gltf` written by us, parsed by Foundation.
    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        var text = bytes
        if bytes.starts(with: Array("glTF".utf8)) {
            let length = Int(bytes[12]) | Int(bytes[13]) << 8 | Int(bytes[14]) << 16 | Int(bytes[15]) << 24
            text = Array(bytes[20..<(20 + length)])
        }
        return try JSONSerialization.jsonObject(with: Data(text)) as! [String: Any]
    }

    @Test func glbLayoutFollowsTheWorkedExample() throws {
        let source = try SplatFile.decode(path: GLTFExpectations.vector("minimal.glb")).scene
        let out = try GLTFEncoder.encode(source, options: .init(writesColor: false))
        let bytes = out.bytes
        #expect(out.count == 2 && out.warnings.isEmpty)
        #expect(Array(bytes[0..<4]) == Array("glTF".utf8) && bytes[4] == 2 && bytes.count % 4 == 0)
        let total = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16
        #expect(total == bytes.count)
        let jsonLength = Int(bytes[12]) | Int(bytes[13]) << 8
        #expect(jsonLength % 4 == 0 && Array(bytes[16..<20]) == Array("JSON".utf8))
        let binHeader = 20 + jsonLength
        #expect(Array(bytes[(binHeader + 4)..<(binHeader + 8)]) == [0x42, 0x49, 0x4E, 0x00])
        // POSITION[0] = (1.5, −2.25, 3.0) at the start of the BIN chunk, as in 15.2.
        #expect(Array(bytes[(binHeader + 8)..<(binHeader + 20)]) == [0, 0, 0xC0, 0x3F, 0, 0, 0x10, 0xC0, 0, 0, 0x40, 0x40])
        let doc = try Self.json(bytes)
        #expect((doc["buffers"] as! [[String: Any]])[0]["byteLength"] as? Int == 112)
        #expect((doc["extensionsUsed"] as? [String]) == ["KHR_gaussian_splatting"])
        #expect(doc["extensionsRequired"] == nil)
        let position = (doc["accessors"] as! [[String: Any]])[0]
        #expect(position["min"] as? [Double] == [-1, -2.25, -0.75] && position["max"] as? [Double] == [1.5, 0.5, 3])
        for view in doc["bufferViews"] as! [[String: Any]] {
            #expect((view["byteOffset"] as! Int) % 4 == 0 && view["target"] as? Int == 34962)
        }
        let primitive = ((doc["meshes"] as! [[String: Any]])[0]["primitives"] as! [[String: Any]])[0]
        #expect(primitive["mode"] as? Int == 0)
        // Splat 1 reads back as stored: ROTATION (0.5, −0.5, 0.5, 0.5) → (w, x, y, z) = (0.5, 0.5, −0.5, 0.5).
        let back = try Self.decode(bytes, name: "out.glb").scene
        #expect(back.rotation(1) == SIMD4(0.5, 0.5, -0.5, 0.5))
        #expect(Array(back.x) == Array(source.x) && Array(back.alpha) == Array(source.alpha))
    }

    @Test func spzFormHasPlaceholdersAndAPayload() throws {
        let source = try SplatFile.decode(path: GLTFExpectations.vector("sh3-datauri.gltf")).scene
        let out = try GLTFEncoder.encode(source, options: .init(compression: .spz))
        let doc = try Self.json(out.bytes)
        #expect(doc["extensionsRequired"] as? [String] == ["KHR_gaussian_splatting", "KHR_gaussian_splatting_compression_spz_2"])
        let accessors = doc["accessors"] as! [[String: Any]]
        #expect(accessors.count == 5 + 15 + 1 && accessors.allSatisfy { $0["bufferView"] == nil && $0["count"] as? Int == 2 })
        let views = doc["bufferViews"] as! [[String: Any]]
        #expect(views.count == 1 && views[0]["target"] == nil)
        let back = try Self.decode(out.bytes, name: "out.glb")
        #expect(back.header.details["primitive.0"]?.contains("SPZ v3 gzip") == true)
        // The payload holds the scene's raw values, no SPZ frame conversion or record (13.3).
        let payload = try out.bytes.withUnsafeBytes { try GLBPayload.spzBytes($0) }
        let direct = try payload.withUnsafeBytes { try SPZDecoder.decode($0, file: nil, limits: DecodeLimits()).scene }
        #expect(direct.declaredFrame == nil && Array(direct.x) == Array(back.scene.x))
        #expect(out.payload.map { Array(out.bytes[$0]) } == payload)
    }

    @Test func gltfContainerCarriesADataURI() throws {
        let source = try SplatFile.decode(path: GLTFExpectations.vector("quantized.glb")).scene
        let out = try GLTFEncoder.encode(source, options: .init(container: .gltf))
        #expect(out.bytes.first == UInt8(ascii: "{"))
        let uri = ((try Self.json(out.bytes)["buffers"] as! [[String: Any]])[0]["uri"] as? String) ?? ""
        #expect(uri.hasPrefix("data:application/octet-stream;base64,"))
        let back = try Self.decode(out.bytes, name: "out.gltf").scene
        #expect(Array(back.y) == Array(source.y) && Array(back.dcG) == Array(source.dcG))
    }

    @Test func nonFiniteSplatsAndDegreeFourAreReported() throws {
        let scene = SplatScene(count: 3, shDegree: 4, zeroed: true)
        for i in 0..<3 { scene.rotW[i] = 1; scene.alpha[i] = 0.5 }
        scene.x[1] = .nan
        scene.logScaleY[2] = -.infinity  // zero extent: written as scale 0
        let out = try GLTFEncoder.encode(scene)
        #expect(out.count == 2)
        #expect(out.warnings.contains { $0.contains("degree 3") } && out.warnings.contains { $0.hasPrefix("non_finite: 1") })
        let back = try Self.decode(out.bytes, name: "x.glb").scene
        #expect(back.shDegree == 3 && back.count == 2 && back.logScaleY[1] == -.infinity)
    }

    @Test func unflattenedInstancesAreRefused() throws {
        let decoded = try SplatFile.decode(path: GLTFExpectations.vector("node-transform.gltf"))
        #expect(throws: SplatError.self) { try GLTFEncoder.encode(decoded.scene) }
        let flat = try SceneTransform.flatten(decoded.scene)
        #expect(try GLTFEncoder.encode(flat).count == 2)
    }

    @Test func colorZeroIsLinearForSRGBScenes() {
        // base colour 0.5 (dc 0) is sRGB 0.5 → linear 0.214 → 55.
        #expect(GLTFWriteLayout.colorByte(0.5, decodesSRGB: true) == 55)
        #expect(GLTFWriteLayout.colorByte(0.5, decodesSRGB: false) == 128)
        #expect(GLTFWriteLayout.colorByte(1.7, decodesSRGB: true) == 255 && GLTFWriteLayout.colorByte(-0.2, decodesSRGB: true) == 0)
    }
}
