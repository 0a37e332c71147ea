import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

/// The glTF and `.ksplat` files of `shared/corpus` against the independent decoder
/// (`splat_ref.py`, sampled splats as the SOG tests do), against the corpus section of
/// `vectors/gltf/expected.json` (stored and flattened splats), and against `MANIFEST.json`.
@Suite struct GLTFCorpusTests {
    static let files = ["gltf/bevy-khr_conformance_matrix.glb", "gltf/bevy-khr_conformance_matrix.gltf",
                        "gltf/bevy-khr_extensible_fallback.gltf", "gltf/cesium-sh_unit_cube.glb",
                        "gltf/cesium-synthetic-early-draft.gltf", "gltf/flywave-aerial-tile1_2.glb",
                        "ksplat/splat-transform-minimal.ksplat"]

    @Test func everyCorpusFileIsListed() throws {
        let onDisk = try ["gltf", "ksplat"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Fixtures.corpus.appendingPathComponent(folder).path).map { "\(folder)/\($0)" }
        }
        #expect(Set(onDisk) == Set(Self.files))
    }

    @Test(.enabled(if: SplatRefSampler.available), arguments: files)
    func corpusFileMatchesSplatRef(_ relative: String) throws {
        let path = Fixtures.corpusFile(relative)
        let entry = try GLTFExpectations.splatRef(path)
        let decoded = try SplatFile.decode(path: path)
        #expect(decoded.header.count == entry["num_points"] as? Int)
        #expect(decoded.scene.shDegree == entry["sh_degree"] as? Int)
        let indices = try #require(entry["indices"] as? [Int])
        #expect(indices.last.map { $0 + 1 } ?? 0 <= decoded.scene.count)
        let problems = GLTFExpectations.mismatches(decoded.scene, entry["splats"] as! [[String: Any]], indices: indices)
        #expect(problems.isEmpty, "\(relative):\n\(problems.prefix(12).joined(separator: "\n"))")
    }

    @Test(arguments: files)
    func corpusFileMatchesExpectedJSON(_ relative: String) throws {
        let entry = try #require(GLTFExpectations.corpus["corpus/" + relative])
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile(relative))
        #expect(decoded.header.count == entry["num_points"] as? Int)
        #expect(decoded.scene.shDegree == entry["sh_degree"] as? Int)
        let problems = GLTFExpectations.mismatches(decoded.scene, entry["splats"] as! [[String: Any]])
        #expect(problems.isEmpty, "\(relative):\n\(problems.prefix(12).joined(separator: "\n"))")
        if let flat = entry["flattened_decode"] as? [String: Any] {
            let flattened = try SceneTransform.flatten(decoded.scene)
            #expect(flattened.count == flat["num_points"] as? Int)
            let problems = GLTFExpectations.mismatches(flattened, flat["splats"] as! [[String: Any]])
            #expect(problems.isEmpty, "\(relative) flattened:\n\(problems.prefix(12).joined(separator: "\n"))")
            #expect(flattened.nodeInstances == nil)
        }
    }

    @Test func countsMatchTheManifest() throws {
        let files = try #require(try Fixtures.manifest()["files"] as? [[String: Any]])
        var checked = 0
        for file in files {
            guard let name = file["file"] as? String, Self.files.contains(name) else { continue }
            let header = try SplatFile.readHeader(path: Fixtures.corpusFile(name))
            #expect(header.format == (name.hasPrefix("ksplat") ? .ksplat : .gltf))
            if let count = file["splat_count"] as? Int { #expect(header.count == count, "\(name)"); checked += 1 }
            if let degree = file["sh_degree"] as? Int { #expect(header.shDegree == degree, "\(name)") }
        }
        #expect(checked == 5, "the manifest gives counts for five of the seven files")
    }

    /// An SPZ-compressed primitive decodes to exactly what our SPZ decoder makes of its payload.
    @Test(arguments: ["gltf/cesium-sh_unit_cube.glb", "gltf/flywave-aerial-tile1_2.glb"])
    func spzPrimitiveEqualsPayloadDecode(_ relative: String) throws {
        let path = Fixtures.corpusFile(relative)
        let glb = try InputBytes(path: path)
        let payload = try GLBPayload.spzBytes(glb.bytes)
        let spz = try payload.withUnsafeBytes { try SPZDecoder.decode($0, file: relative, limits: DecodeLimits()).scene }
        let scene = try SplatFile.decode(path: path).scene
        #expect(scene.count == spz.count && scene.shDegree == spz.shDegree && scene.model == spz.model)
        for c in SplatScene.Column.allCases {
            #expect(Array(scene.column(c)) == Array(spz.column(c)), "\(relative): column \(c)")
        }
        #expect(Array(scene.sh) == Array(spz.sh))
        // The payload's own frame facts are replaced by glTF's (13.3).
        #expect(spz.conventionalFrame == .rub && scene.conventionalFrame == .luf && scene.declaredFrame == .luf)
    }

    /// Chunk boundaries, not the thread count, decide the work split: one thread and all give the same bytes.
    @Test func resultsDoNotDependOnTheThreadCount() throws {
        let written = try GLTFEncoder.encode(try SceneTransform.flatten(try SplatFile.decode(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb")).scene))
        let input = written.bytes.withUnsafeBytes { InputBytes(copying: $0, name: "tile.glb") }
        let one = try SplatFile.decode(input, gltf: .init(threads: 1)).scene
        let all = try SplatFile.decode(input, gltf: .init(threads: 8)).scene
        for c in SplatScene.Column.allCases { #expect(Array(one.column(c)) == Array(all.column(c))) }
        #expect(Array(one.sh) == Array(all.sh))
        let source = try SplatFile.decode(path: Fixtures.corpusFile("gltf/bevy-khr_conformance_matrix.glb")).scene
        let flatOne = try SceneTransform.flatten(source, threads: 1)
        let again = try SplatFile.decode(path: Fixtures.corpusFile("gltf/bevy-khr_conformance_matrix.glb")).scene
        let flatAll = try SceneTransform.flatten(again, threads: 8)
        for c in SplatScene.Column.allCases { #expect(Array(flatOne.column(c)) == Array(flatAll.column(c))) }
    }

    @Test func spzPrimitiveHeaderDetails() throws {
        let header = try SplatFile.readHeader(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb"))
        #expect(header.details["compression"] == "KHR_gaussian_splatting_compression_spz_2")
        #expect(header.details["primitive.0"]?.contains("SPZ v3 gzip") == true)
        #expect(header.details["node_transform"] == "applied when flattened")
        #expect(header.details["instance.0"]?.hasPrefix("node 0, mesh 0, matrix [1,0,0,0,0,0,-1,0,0,1,0,0,") == true)
        #expect(header.details["instanced_count"] == "51887")
    }
}

/// The SPZ payload of a one-primitive GLB, found through its JSON (test-side, independent of the decoder).
enum GLBPayload {
    static func spzBytes(_ glb: UnsafeRawBufferPointer) throws -> [UInt8] {
        let jsonLength = Int(glb.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        let json = try JSONSerialization.jsonObject(with: Data(glb[20..<(20 + jsonLength)])) as! [String: Any]
        let primitive = ((json["meshes"] as! [[String: Any]])[0]["primitives"] as! [[String: Any]])[0]
        let gs = (primitive["extensions"] as! [String: Any])["KHR_gaussian_splatting"] as! [String: Any]
        let spz = (gs["extensions"] as! [String: Any]).values.first as! [String: Any]
        let view = (json["bufferViews"] as! [[String: Any]])[spz["bufferView"] as! Int]
        let binStart = 20 + jsonLength + 8
        let offset = binStart + (view["byteOffset"] as? Int ?? 0)
        return Array(glb[offset..<(offset + (view["byteLength"] as! Int))])
    }
}
