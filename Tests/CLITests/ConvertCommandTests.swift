import Foundation
import Testing
import SplatService
import SplatCore
import SplatFormats
import TestSupport
@testable import SplatRenderCLI

/// Differences between two scenes' values beyond `tolerance` (one line each; empty = equal).
func sceneDifferences(_ a: SplatScene, _ b: SplatScene, tolerance: Float = 1e-6) -> [String] {
    guard a.count == b.count, a.shDegree == b.shDegree, a.model == b.model else {
        return ["shape \(a.count)/\(a.shDegree)/\(a.model) vs \(b.count)/\(b.shDegree)/\(b.model)"]
    }
    var out: [String] = []
    for column in SplatScene.Column.allCases {
        let x = a.column(column), y = b.column(column)
        for i in 0..<a.count where !(abs(x[i] - y[i]) <= tolerance || x[i] == y[i]) {
            out.append("\(column) [\(i)]: \(x[i]) vs \(y[i])")
        }
    }
    let sa = a.sh, sb = b.sh
    for i in 0..<sa.count where abs(sa[i] - sb[i]) > tolerance {
        out.append("sh[\(i)]: \(sa[i]) vs \(sb[i])")
    }
    return out
}

@Suite struct ConvertCommandTests {
    @Test func plyToPlyRoundTripEqualsTheDecode() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert")
        let out = dir.appendingPathComponent("copy.ply").path
        let source = Fixtures.vector("tiny-3dgs-le.ply")
        let run = runCLI(["convert", source, out])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.out.text.hasPrefix("wrote \(out): ply, 2 splats, SH degree 1, frame RDF"))
        let original = try SplatFile.decode(path: source).scene
        let copy = try SplatFile.decode(path: out).scene
        #expect(sceneDifferences(original, copy).isEmpty, "\(sceneDifferences(original, copy))")
        let entry = try #require(try Fixtures.expectedVectors()["tiny-3dgs-le.ply"])
        #expect(ExpectedSplats.mismatches(copy, expected: entry).isEmpty)
        // Atomic write: nothing but the output is left in the folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["copy.ply"])
    }

    @Test func toFrameConvertsFromTheDecidedSourceFrame() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-frame")
        let out = dir.appendingPathComponent("rub.ply").path
        let source = Fixtures.vector("tiny-3dgs-le.ply")
        let reportPath = dir.appendingPathComponent("report.json").path
        let run = runCLI(["convert", source, out, "--to-frame", "RUB", "--report", reportPath])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.err.text.contains("PLY readers assume RDF"))
        let expected = try SplatFile.decode(path: source).scene
        FrameConversion(from: .rdf, to: .rub).apply(to: expected)
        let converted = try SplatFile.decode(path: out).scene
        #expect(sceneDifferences(expected, converted, tolerance: 1e-6).isEmpty,
                "\(sceneDifferences(expected, converted))")
        // RDF → RUB negates y and z.
        let original = try SplatFile.decode(path: source).scene
        #expect(converted.y[0] == -original.y[0] && converted.z[1] == -original.z[1] && converted.x[0] == original.x[0])

        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        #expect(report["status"] as? String == "ok")
        #expect(report["command"] as? String == "convert")
        #expect(report["count"] as? Int == 2)
        let frame = try #require(report["frame_decision"] as? [String: Any])
        #expect(frame["source_frame"] as? String == "RDF")
        #expect(frame["render_frame"] as? String == "RUB")
        let outputs = try #require(report["outputs"] as? [[String: Any]])
        #expect(outputs.first?["path"] as? String == out)
        #expect(outputs.first?["frame"] as? String == "RUB")
        #expect((report["timings_ms"] as? [String: Any])?["decode"] != nil)
    }

    @Test func aRefusedDecodeExits75AndWritesNothing() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-large")
        let out = dir.appendingPathComponent("big.ply").path
        let reportPath = dir.appendingPathComponent("report.json").path
        let run = runCLI(["convert", Fixtures.vector("bomb-v2-4mib.spz"), out, "--max-decoded-bytes", "1M",
                          "--report", reportPath])
        #expect(run.status == 75)
        #expect(run.err.text.hasPrefix("error: too_large: "))
        #expect(run.err.text.contains("12320000") && run.err.text.contains("1048576"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        // Reports name the error kind as their status (the batch report's rule, shared by all).
        #expect(report["status"] as? String == "too_large")
        #expect(report["exit_code"] as? Int == 75)
        #expect((report["error"] as? [String: Any])?["kind"] as? String == "too_large")
    }

    @Test func outputProblemsHaveTheirOwnStatus() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-out")
        let source = Fixtures.vector("tiny-3dgs-le.ply")
        let noFolder = runCLI(["convert", source, dir.appendingPathComponent("missing/x.ply").path])
        #expect(noFolder.status == 73)
        #expect(noFolder.err.text.hasPrefix("error: io: "))
        let unknown = runCLI(["convert", source, dir.appendingPathComponent("x.obj").path])
        #expect(unknown.status == 64)
        #expect(unknown.err.text.hasSuffix("(see --help)\n"))
        let wrongOption = runCLI(["convert", source, dir.appendingPathComponent("x.ply").path, "--spz-version", "3"])
        #expect(wrongOption.status == 64)
    }

    @Test func spzOutputRecordsAKnownFrameOnly() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-spz")
        // Written in SPZ's own convention: PLY's RDF values converted to RUB, and the SPZ says so.
        let fromPLY = dir.appendingPathComponent("tiny.spz").path
        let run = runCLI(["convert", Fixtures.vector("tiny-3dgs-le.ply"), fromPLY, "--spz-version", "3"])
        #expect(run.status == 0, "\(run.err.text)")
        let spz = try SplatFile.decode(path: fromPLY)
        #expect(spz.header.format == .spz && spz.header.version == 3)
        #expect(spz.scene.declaredFrame == .rub)
        #expect(spz.scene.model == .antialiased)
        let ply = try SplatFile.decode(path: Fixtures.vector("tiny-3dgs-le.ply")).scene
        FrameConversion(from: .rdf, to: .rub).apply(to: ply)
        for i in 0..<ply.count {
            // 12 fractional bits: positions within half a step.
            #expect(abs(spz.scene.x[i] - ply.x[i]) <= 0.5 / 4096 + 1e-7)
            #expect(abs(spz.scene.y[i] - ply.y[i]) <= 0.5 / 4096 + 1e-7)
            #expect(abs(spz.scene.z[i] - ply.z[i]) <= 0.5 / 4096 + 1e-7)
        }

        // With --keep-frame an undeclared SPZ's frame is the open question: nothing is recorded,
        // nothing converted.
        let copy = dir.appendingPathComponent("copy.spz").path
        let plain = runCLI(["convert", Fixtures.vector("minimal-v4.spz"), copy, "--keep-frame"])
        #expect(plain.status == 0, "\(plain.err.text)")
        #expect(plain.out.text.contains("frame not recorded"))
        let original = try SplatFile.decode(path: Fixtures.vector("minimal-v4.spz")).scene
        let copied = try SplatFile.decode(path: copy).scene
        #expect(copied.declaredFrame == nil)
        #expect(sceneDifferences(original, copied, tolerance: 1e-6).isEmpty, "\(sceneDifferences(original, copied))")

        // --to-frame converts from the SPZ default (RUB) and records the target.
        let rdf = dir.appendingPathComponent("rdf.spz").path
        let converted = runCLI(["convert", Fixtures.vector("minimal-v4.spz"), rdf, "--to-frame", "RDF"])
        #expect(converted.status == 0, "\(converted.err.text)")
        let back = try SplatFile.decode(path: rdf).scene
        #expect(back.declaredFrame == .rdf)
        for i in 0..<original.count {
            #expect(back.x[i] == original.x[i] && back.y[i] == -original.y[i] && back.z[i] == -original.z[i])
        }
    }

    @Test func eachOutputIsWrittenInItsFormatsConvention() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-convention")
        let source = Fixtures.vector("minimal-v4.spz")
        let original = try SplatFile.decode(path: source).scene
        // SPZ (RUB) → PLY: values in RDF, so PLY readers (this tool included) show it upright.
        let ply = dir.appendingPathComponent("scene.ply").path
        let toPLY = runCLI(["convert", source, ply])
        #expect(toPLY.status == 0, "\(toPLY.err.text)")
        #expect(toPLY.out.text.contains("frame RDF"))
        let back = try SplatFile.decode(path: ply).scene
        let expected = try SplatFile.decode(path: source).scene
        FrameConversion(from: .rub, to: .rdf).apply(to: expected)
        #expect(sceneDifferences(expected, back, tolerance: 1e-6).isEmpty, "\(sceneDifferences(expected, back))")
        #expect(back.y[0] == -original.y[0] || original.y[0] == 0)
        // SPZ → SPZ: already RUB; the frame is now recorded.
        let spz = dir.appendingPathComponent("copy.spz").path
        #expect(runCLI(["convert", source, spz]).status == 0)
        let copied = try SplatFile.decode(path: spz).scene
        #expect(copied.declaredFrame == .rub)
        #expect(sceneDifferences(original, copied, tolerance: 1e-6).isEmpty)
        // --keep-frame and --to-frame contradict each other.
        #expect(runCLI(["convert", source, spz, "--keep-frame", "--to-frame", "RDF"]).status == 64)
    }

    @Test func gltfOutputsReadBackAndRenderLikeTheSource() throws {
        let dir = try Fixtures.temporaryDirectory("cli-convert-gltf")
        let source = Fixtures.vector("minimal-v4.spz")
        let plain = dir.appendingPathComponent("s.glb").path, packed = dir.appendingPathComponent("z.glb").path
        let json = dir.appendingPathComponent("s.gltf").path
        #expect(runCLI(["convert", source, plain]).status == 0)
        #expect(runCLI(["convert", source, packed, "--gltf-compression", "spz"]).status == 0)
        #expect(runCLI(["convert", source, json]).status == 0)
        #expect(runCLI(["convert", source, dir.appendingPathComponent("x.ply").path, "--gltf-compression", "spz"]).status == 64)
        let header = try SplatFile.readHeader(path: packed)
        #expect(header.format == .gltf && header.details["compression"] == "KHR_gaussian_splatting_compression_spz_2")
        #expect(try SplatFile.readHeader(path: plain).declaredFrame == .luf)
        // The same camera on the source and each glTF gives the same pixels (frames are declared).
        let camera = ["--resolution", "24x24", "--camera-pos", "0,0,4", "--camera-target", "0,0,0", "--up", "convention"]
        let reference = runCLI(["render", source, "--out", "-", "--out-format", "png"] + camera)
        #expect(reference.status == 0, "\(reference.err.text)")
        for file in [plain, json] {
            let run = runCLI(["render", file, "--out", "-", "--out-format", "png"] + camera)
            #expect(run.status == 0, "\(run.err.text)")
            #expect(run.out.bytes == reference.out.bytes, "\(file)")
        }
        let compressed = runCLI(["render", packed, "--out", "-", "--out-format", "png"] + camera)
        #expect(compressed.status == 0 && !compressed.out.bytes.isEmpty)
    }
}
