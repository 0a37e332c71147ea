import Foundation
import SplatCore
import SplatFormats
import Testing

/// Detection of glTF, GLB and .ksplat (formats-gltf.md 11.1) beside the other formats' rules.
@Suite struct GLTFDetectionTests {
    static func detect(_ bytes: [UInt8], _ name: String?) -> Result<FormatSniffer.Result, SplatError> {
        bytes.withUnsafeBytes { raw in
            do throws(SplatError) { return .success(try FormatSniffer.detect(prefix: raw, name: name)) } catch { return .failure(error) }
        }
    }

    @Test func bytesAndNames() throws {
        let glb = Array("glTF".utf8) + [2, 0, 0, 0]
        let json = Array("\u{FEFF}  {\"buffers\":[],\"asset\":{\"version\":\"2.0\"}}".utf8)
        #expect(try Self.detect(glb, nil).get().format == .gltf)
        let named = try Self.detect(glb, "scene.glb").get()
        #expect(named.format == .gltf && named.warnings.isEmpty)
        #expect(try Self.detect(glb, "scene.spz").get().warnings.count == 1, "a name that disagrees with the bytes warns")
        #expect(try Self.detect(json, nil).get().format == .gltf, "JSON with an asset object, no name")
        #expect(try Self.detect(Array("{\"x\":1}".utf8), "tile.gltf").get().format == .gltf, "the .gltf name alone")
        #expect(try Self.detect([0, 1, 0, 0], "scene.ksplat").get().format == .ksplat)
        #expect(try Self.detect(Array("{\"asset\":1}".utf8), "scene/meta.json").get().format == .sog, "meta.json stays SOG")
        // A .glb without the magic reaches the GLB reader, which refuses it.
        #expect(try Self.detect(Array("glTX1234".utf8), "bad.glb").get().format == .gltf)
        let refused = Array("glTX12345678".utf8).withUnsafeBytes { InputBytes(copying: $0, name: "bad.glb") }
        #expect(throws: SplatError(.badMagic, "GLB magic is not \"glTF\"", file: "bad.glb", offset: 0)) { try SplatFile.decode(refused) }
        // JSON without an asset object and no telling name is not glTF.
        guard case .failure(let error) = Self.detect(Array("{\"means\":{}}".utf8), nil) else { Issue.record("detected"); return }
        #expect(error.kind == .badMagic)
    }
}
