import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

/// Every corpus scene written as `.glb` and read back (formats-gltf.md 15): the plain form to
/// Float precision, the SPZ form exactly as our SPZ encoder and decoder round-trip the same
/// scene; written files read by `splat_ref.py` value for value; and the JSON of each form
/// validated against the glTF and extension schemas with Python `jsonschema`.
@Suite struct GLTFRoundTripTests {
    /// Scenes of the corpus (the raw, un-gzipped SPZ is not a valid SPZ and is left out).
    static let scenes: [String] = {
        let files = (try? Fixtures.manifest()["files"] as? [[String: Any]]) ?? []
        return files.compactMap { $0["file"] as? String }.filter { !$0.hasSuffix("-raw.spz") }.sorted()
    }()

    static func source(_ relative: String) throws -> SplatScene {
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile(relative))
        return try SceneTransform.flatten(decoded.scene)
    }

    /// The largest component magnitude (quaternions compare up to sign).
    static func largest(_ v: SIMD4<Float>) -> Float { max(v.max(), -v.min()) }

    static func decode(_ bytes: [UInt8], name: String) throws -> SplatScene {
        try bytes.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: name)).scene }
    }

    @Test(arguments: scenes)
    func plainRoundTripKeepsFloats(_ relative: String) throws {
        let scene = try Self.source(relative)
        let out = try GLTFEncoder.encode(scene)
        let back = try Self.decode(out.bytes, name: "round.glb")
        #expect(back.count == scene.count && back.shDegree == min(scene.shDegree, 3))
        for c: SplatScene.Column in [.x, .y, .z, .alpha, .dcR, .dcG, .dcB] {
            #expect(Array(back.column(c)) == Array(scene.column(c)), "\(relative): \(c) changed")
        }
        #expect(Array(back.sh) == Array(scene.sh), "\(relative): SH changed")
        var worstScale: Float = 0, worstRotation: Float = 0
        for i in 0..<scene.count {
            let d = back.logScale(i) - scene.logScale(i)
            // ln(exp(s)) in Float: equal up to rounding, and −∞ stays −∞.
            for k in 0..<3 where !(scene.logScale(i)[k] == -.infinity && back.logScale(i)[k] == -.infinity) {
                worstScale = max(worstScale, abs(d[k]))
            }
            let q = scene.rotation(i), r = back.rotation(i)
            worstRotation = max(worstRotation, min(Self.largest(r - q), Self.largest(r + q)))
        }
        #expect(worstScale < 1e-5, "\(relative): log-scale off by \(worstScale)")
        #expect(worstRotation < 1e-6, "\(relative): rotation off by \(worstRotation)")
    }

    @Test(arguments: scenes)
    func spzRoundTripEqualsTheSPZEncoding(_ relative: String) throws {
        let scene = try Self.source(relative)
        let out = try GLTFEncoder.encode(scene, options: .init(compression: .spz))
        let back = try Self.decode(out.bytes, name: "round.glb")
        let payload = try out.bytes.withUnsafeBytes { try GLBPayload.spzBytes($0) }
        let header = try payload.withUnsafeBytes { try SPZDecoder.readHeader($0, file: nil, limits: DecodeLimits()) }
        #expect(header.version == 3 && header.details["container"] == "gzip")
        let bits = Int(header.details["fractional_bits"] ?? "") ?? -1
        // The payload is exactly our SPZ encoder's v3 output for the scene.
        let spz = try SPZEncoder.encode(scene, options: SPZEncoder.Options(version: 3, fractionalBits: bits))
        #expect(spz == payload, "\(relative): payload differs from SPZEncoder's")
        let reference = try spz.withUnsafeBytes { try SPZDecoder.decode($0, file: nil, limits: DecodeLimits()).scene }
        #expect(back.count == reference.count && back.shDegree == reference.shDegree && back.model == scene.model)
        for c in SplatScene.Column.allCases {
            #expect(Array(back.column(c)) == Array(reference.column(c)), "\(relative): \(c)")
        }
        #expect(Array(back.sh) == Array(reference.sh))
        // Quantisation stays within SPZ's steps where values are inside its ranges (formats.md 2.5).
        let step = 1 / Float(1 << bits)
        for i in 0..<scene.count {
            let d = back.position(i) - scene.position(i)
            #expect(max(d.max(), -d.min()) <= step, "\(relative) splat \(i) position")
            #expect(abs(back.alpha[i] - scene.alpha[i]) <= 0.5 / 255 + 1e-6)
        }
    }

    /// Files we write, read by the independent decoder.
    @Test(.enabled(if: SplatRefSampler.available),
          arguments: [("ply/supersplat-fruit_drops_minimal.ply", GLTFEncoder.Compression.none, GLTFEncoder.Container.glb),
                      ("gltf/flywave-aerial-tile1_2.glb", .spz, .glb), ("spz/adobe-SanitySplats.spz", .none, .gltf),
                      ("sog/playbot-lod4/", .spz, .gltf)])
    func writtenFilesReadBackInSplatRef(_ relative: String, _ compression: GLTFEncoder.Compression,
                                        _ container: GLTFEncoder.Container) throws {
        let scene = try Self.source(relative)
        let out = try GLTFEncoder.encode(scene, options: .init(container: container, compression: compression))
        let folder = try Fixtures.temporaryDirectory("gltf-write")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.\(container.rawValue)").path
        try Data(out.bytes).write(to: URL(fileURLWithPath: path))
        let ours = try SplatFile.decode(path: path).scene
        let entry = try GLTFExpectations.splatRef(path)
        #expect(entry["num_points"] as? Int == ours.count)
        #expect(entry["sh_degree"] as? Int == ours.shDegree)
        let problems = GLTFExpectations.mismatches(ours, entry["splats"] as! [[String: Any]], indices: entry["indices"] as? [Int])
        #expect(problems.isEmpty, "\(relative):\n\(problems.prefix(12).joined(separator: "\n"))")
        #expect((entry["warnings"] as? [String] ?? []).isEmpty, "splat_ref warns: \(entry["warnings"] ?? "")")
    }

    /// Validates with the schemas of `spec/gltf-schema` as its README says; prints one line per
    /// error and exits 1 when there are any.
    static let validator = """
        import json, os, sys
        from jsonschema import Draft202012Validator, Draft4Validator
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012
        folder, path = sys.argv[1], sys.argv[2]
        schemas = {}
        for name in os.listdir(folder):
            if name.endswith(".schema.json"):
                schemas[name] = json.load(open(os.path.join(folder, name)))
        registry = Registry().with_resources([(n, Resource.from_contents(s, default_specification=DRAFT202012)) for n, s in schemas.items()])
        data = open(path, "rb").read()
        if data[:4] == b"glTF":
            n = int.from_bytes(data[12:16], "little")
            data = data[20:20 + n]
        doc = json.loads(data)
        errors = [e.message for e in Draft202012Validator(schemas["glTF.schema.json"], registry=registry).iter_errors(doc)]
        for mesh in doc.get("meshes", []):
            for prim in mesh.get("primitives", []):
                gs = prim.get("extensions", {}).get("KHR_gaussian_splatting")
                if gs is None:
                    continue
                schema = schemas["mesh.primitive.KHR_gaussian_splatting.schema.json"]
                errors += [e.message for e in Draft202012Validator(schema, registry=registry).iter_errors(gs)]
                spz = gs.get("extensions", {}).get("KHR_gaussian_splatting_compression_spz_2")
                if spz is not None:
                    schema = schemas["mesh.primitive.KHR_gaussian_splatting_compression_spz_2.schema.json"]
                    errors += [e.message for e in Draft4Validator(schema, registry=registry).iter_errors(spz)]
        for e in errors:
            print(e)
        sys.exit(1 if errors else 0)
        """

    /// (exit status, messages) of the validator on a file.
    static func validate(_ path: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SplatRefSampler.python!)
        process.arguments = ["-c", validator, Fixtures.shared.appendingPathComponent("spec/gltf-schema").path, path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test(.enabled(if: SplatRefSampler.available))
    func outputValidatesAgainstTheSchemas() throws {
        let folder = try Fixtures.temporaryDirectory("gltf-schema")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scene = try Self.source("ply/splatapult-test.ply")
        for container in GLTFEncoder.Container.allCases {
            for compression in GLTFEncoder.Compression.allCases {
                let out = try GLTFEncoder.encode(scene, options: .init(container: container, compression: compression))
                let path = folder.appendingPathComponent("out-\(compression).\(container.rawValue)").path
                try Data(out.bytes).write(to: URL(fileURLWithPath: path))
                let (status, text) = try Self.validate(path)
                #expect(status == 0, "\(container) \(compression): \(text)")
            }
        }
        // The validator is live: the early-draft vector lacks the required kernel/colorSpace.
        let (status, text) = try Self.validate(GLTFExpectations.vector("early-draft.gltf"))
        #expect(status == 1 && text.contains("kernel"), "early-draft.gltf: \(text)")
    }
}
