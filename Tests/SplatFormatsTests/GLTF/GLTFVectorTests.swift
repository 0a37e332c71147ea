import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// Every file of `vectors/gltf/` against `expected.json` (formats-gltf.md 18): error kinds for
/// the bad-* files; for the others the header facts, the listed splats (stored values), the
/// flattened splats where the entry has them, and the strict and scale-override variants.
@Suite struct GLTFVectorTests {
    static let names = GLTFExpectations.files.keys.sorted()

    @Test(arguments: names)
    func vectorMatchesExpected(_ name: String) throws {
        let entry = try #require(GLTFExpectations.files[name])
        let path = GLTFExpectations.vector(name)
        if entry["expect"] as? String == "error" {
            let kind = try #require(entry["error"] as? String)
            #expect(throws: SplatError.self) { try SplatFile.decode(path: path) }
            do throws(SplatError) {
                _ = try SplatFile.decode(path: path)
            } catch {
                #expect(error.kind.rawValue == kind, "\(name): \(error)")
                #expect(!error.message.isEmpty)
            }
            return
        }
        let decoded = try SplatFile.decode(path: path)
        let scene = decoded.scene
        #expect(decoded.header.count == entry["num_points"] as? Int, "\(name): stored count")
        #expect(scene.count == entry["splats_listed"] as? Int, "\(name): splats after the non-finite rule")
        #expect(scene.shDegree == entry["sh_degree"] as? Int)
        #expect(decoded.header.shDegree == entry["sh_degree"] as? Int)
        if let model = entry["model"] as? String { #expect(scene.model.rawValue == model) }
        let problems = GLTFExpectations.mismatches(scene, entry["splats"] as! [[String: Any]])
        #expect(problems.isEmpty, "\(name):\n\(problems.prefix(12).joined(separator: "\n"))")
        let warnings = entry["warnings"] as? [String] ?? []
        #expect(scene.warnings.count == warnings.count, "\(name): warnings \(scene.warnings) expected \(warnings)")

        if name.hasSuffix(".ksplat") {
            #expect(decoded.header.format == .ksplat)
            #expect(scene.conventionalFrame == .rdf && scene.declaredFrame == nil)
            #expect(decoded.header.details["compression_level"] == (entry["compression_level"] as? Int).map(String.init))
            #expect(decoded.header.details["sections"] == (entry["sections"] as? [Any]).map { String($0.count) })
            return
        }
        try checkGLTFFacts(name, entry, decoded)
        if let flat = entry["flattened_decode"] as? [String: Any] {
            let flattened = try SceneTransform.flatten(scene)
            #expect(flattened.count == flat["num_points"] as? Int, "\(name): flattened count")
            let problems = GLTFExpectations.mismatches(flattened, flat["splats"] as! [[String: Any]])
            #expect(problems.isEmpty, "\(name) flattened:\n\(problems.prefix(12).joined(separator: "\n"))")
        }
        if let strict = entry["with_strict"] as? [String: Any] {
            #expect(strict["expect"] as? String == "error")
            do throws(SplatError) {
                _ = try SplatFile.decode(path: path, limits: DecodeLimits(strict: true))
                Issue.record("\(name): strict decode succeeded")
            } catch {
                #expect(error.kind.rawValue == strict["error"] as? String)
            }
        }
        if let linear = entry["with_scale_linear"] as? [String: Any] {
            let override = try SplatFile.decode(path: path, gltf: .init(scaleEncoding: .linear))
            let problems = GLTFExpectations.mismatches(override.scene, linear["splats"] as! [[String: Any]])
            #expect(problems.isEmpty, "\(name) linear:\n\(problems.prefix(12).joined(separator: "\n"))")
        }
    }

    /// Container, extension properties, frame facts and node instances.
    func checkGLTFFacts(_ name: String, _ entry: [String: Any], _ decoded: DecodedScene) throws {
        let scene = decoded.scene, details = decoded.header.details
        #expect(decoded.header.format == .gltf)
        #expect(details["container"] == entry["format"] as? String)
        #expect(details["color_space"] == entry["color_space"] as? String)
        #expect(details["kernel"] == entry["kernel"] as? String)
        let primitives = try #require(entry["primitives"] as? [[String: Any]])
        #expect(details["primitives"] == String(primitives.count))
        for (i, p) in primitives.enumerated() {
            #expect(details["primitive.\(i).attributes"] == (p["attributes"] as? [String])?.joined(separator: ","))
            if let encoding = p["scale_encoding"] as? String {
                #expect(details["primitive.\(i)"]?.contains("SCALE \(encoding) (") == true, "\(name): \(details["primitive.\(i)"] ?? "")")
            }
            if let ext = p["compression_extension"] as? String { #expect(details["compression"]?.contains(ext) == true) }
        }
        // splat_ref.py reports the glTF frame as LUF (formats-gltf.md 13.1), RDF for splat-transform < 2.0.0.
        let rdf = (entry["warnings"] as? [String] ?? []).contains { $0.contains("declared frame RDF") }
        #expect(scene.declaredFrame == (rdf ? .rdf : .luf))
        #expect(decoded.header.declaredFrame == scene.declaredFrame)
        #expect(scene.conventionalFrame == .luf)
        let facts = try #require(scene.nodeInstances)
        if let expected = GLTFExpectations.instances(entry) {
            #expect(facts.instances.count == expected.count)
            for (got, want) in zip(facts.instances, expected) {
                #expect(got.node == want.node && got.mesh == want.mesh)
                #expect(zip(got.matrix, want.matrix).allSatisfy { GLTFExpectations.close($0, $1) }, "\(name): \(got.matrix) vs \(want.matrix)")
            }
        }
    }

    @Test func readHeaderAgreesWithDecode() throws {
        for name in Self.names where GLTFExpectations.files[name]?["expect"] as? String == "ok" {
            let path = GLTFExpectations.vector(name)
            let header = try SplatFile.readHeader(path: path)
            let decoded = try SplatFile.decode(path: path)
            #expect(header.count == decoded.header.count && header.shDegree == decoded.header.shDegree, "\(name)")
            #expect(header.declaredFrame == decoded.header.declaredFrame)
        }
    }

    /// A buffer read from a file beside the `.gltf` is held for the whole decode, so the job's
    /// memory estimate must count it (its `byteLength`), with the parsed JSON; the GLB BIN chunk is
    /// the input itself.
    @Test func externalBufferCountsInTheDecodeScratch() throws {
        let external = try SplatFile.readHeader(path: GLTFExpectations.vector("external-buffer.gltf"))
        let bin = try #require(try FileManager.default.attributesOfItem(atPath: GLTFExpectations.vector("ext-buf.bin"))[.size] as? Int)
        let json = try Data(contentsOf: URL(fileURLWithPath: GLTFExpectations.vector("external-buffer.gltf")))
        let separators = json.filter { [0x2C, 0x3A, 0x5B, 0x7B].contains($0) }.count
        #expect(external.decodeScratchBytes == bin + (separators + 1) * JSONParser.bytesPerValue)
        for glb in try FileManager.default.contentsOfDirectory(atPath: GLTFExpectations.folder.path)
        where glb.hasSuffix(".glb") && !glb.hasPrefix("bad-") {
            let header = try SplatFile.readHeader(path: GLTFExpectations.vector(glb))
            guard header.details["compression"] == "none" else { continue }
            // Only the parsed JSON: the BIN chunk is the input.
            #expect(header.decodeScratchBytes > 0 && header.decodeScratchBytes < 1 << 20, "\(glb)")
        }
    }

    /// The primitive's `colorSpace` reaches the scene (the renderer acts on it), and a glTF
    /// written from a linear scene says so again.
    @Test func colorSpaceReachesTheSceneAndRoundTrips() throws {
        let linear = try SplatFile.decode(path: GLTFExpectations.vector("sh3-datauri.gltf")).scene
        #expect(linear.colorSpace == .linearRec709Display)
        #expect(try SplatFile.decode(path: GLTFExpectations.vector("minimal.glb")).scene.colorSpace == .srgbRec709Display)
        let written = try GLTFEncoder.encode(linear).bytes
        let again = try written.withUnsafeBytes { (raw) throws(SplatError) in
            try SplatFile.decode(InputBytes(copying: raw, name: "again.glb"))
        }
        #expect(again.scene.colorSpace == .linearRec709Display)
    }

    @Test func externalBufferNeedsAFolder() throws {
        let path = GLTFExpectations.vector("external-buffer.gltf")
        let file = try InputBytes(path: path)
        let memory = InputBytes(copying: file.bytes, name: "-")
        do throws(SplatError) {
            _ = try SplatFile.decode(memory)
            Issue.record("a relative buffer URI resolved without a folder")
        } catch {
            #expect(error.kind == .badMeta)
            #expect(error.message.contains("no folder"))
        }
    }
}
