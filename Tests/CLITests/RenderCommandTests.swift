import Foundation
import Testing
import SplatService
import SplatCore
import SplatFormats
import SplatImage
import TestSupport
@testable import SplatRenderCLI

@Suite struct RenderCommandTests {
    static let fruit = Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")

    @Test func goldenCameraInStoredCoordinatesWithSourceFrameRUB() throws {
        // The golden camera is given in the PLY's stored coordinates: --source-frame RUB means
        // "no conversion", so the camera applies unchanged and the image matches the reference.
        let dir = try Fixtures.temporaryDirectory("cli-render-golden")
        let out = dir.appendingPathComponent("fruit.png").path
        let run = runCLI([Self.fruit, "--out", out, "--resolution", "256x256", "--source-frame", "RUB",
                          "--camera-pos", "0.750833,0.115304,-1.475266", "--camera-target", "0.750833,0.115304,-2.136216",
                          "--camera-up", "0,-1,0", "--camera-fov", "50", "--background", "0,0,0"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.out.text == "wrote \(out): 256x256 RGB, 4721 splats\n")
        let image = try PNGReader.read(path: out)
        let golden = try PNGReader.read(path: Fixtures.goldenExample.appendingPathComponent("example_fruit.png").path)
        let comparison = ImageComparison.compare(image, golden)
        #expect(comparison.meetsGoldenThresholds, "\(comparison)")
    }

    @Test func pngHasTheRequestedSizeAndAlphaWithoutBackground() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-size")
        let out = dir.appendingPathComponent("thumb.png").path
        let reportPath = dir.appendingPathComponent("run.json").path
        // No camera: the automatic three-quarter view; render is the default command.
        let run = runCLI([Self.fruit, "-o", out, "--resolution", "96x64", "--report", reportPath, "--threads", "2"])
        #expect(run.status == 0, "\(run.err.text)")
        let image = try PNGReader.read(path: out)
        #expect(image.width == 96 && image.height == 64 && image.channels == 4)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])
        #expect(report["status"] as? String == "ok")
        #expect(report["count"] as? Int == 4721)
        #expect(report["sh_degree"] as? Int == 3)
        let frame = try #require(report["frame_decision"] as? [String: Any])
        #expect(frame["source_frame"] as? String == "RDF")
        #expect(frame["reason"] as? String == "format_default")
        // The framed scene covers a good part of the image, and the PNG's alpha is the coverage
        // the renderer reported.
        let alphas = stride(from: 3, to: image.pixels.count, by: 4).map { Double(image.pixels[$0]) / 255 }
        let meanAlpha = alphas.reduce(0, +) / Double(alphas.count)
        let coverage = try #require((report["render_stats"] as? [String: Any])?["coverage"] as? NSNumber).doubleValue
        #expect(coverage > 0.2 && coverage <= 1)
        #expect(abs(meanAlpha - coverage) < 0.01, "mean alpha \(meanAlpha), coverage \(coverage)")
        let camera = try #require(report["camera"] as? [String: Any])
        #expect(camera["position_source"] as? String == "auto")
        #expect((camera["fov_y_degrees"] as? NSNumber)?.doubleValue == 50)
        let outputs = try #require(report["outputs"] as? [[String: Any]])
        #expect(outputs.first?["width"] as? Int == 96 && outputs.first?["height"] as? Int == 64)
        let timings = try #require(report["timings_ms"] as? [String: Any])
        for stage in ["decode", "convert_frame", "framing", "render", "encode_png", "write", "total"] {
            #expect(timings[stage] != nil, "no time for \(stage)")
        }
    }

    @Test func onlyAPositionLooksAtTheFramedCentre() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-pos")
        let out = dir.appendingPathComponent("a.png").path
        let reportPath = dir.appendingPathComponent("run.json").path
        let auto = runCLI([Self.fruit, "-o", out, "--resolution", "32x32", "--report", reportPath])
        #expect(auto.status == 0, "\(auto.err.text)")
        let autoCamera = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])?["camera"] as? [String: Any])
        let run = runCLI([Self.fruit, "-o", out, "--resolution", "32x32", "--report", reportPath, "--camera-pos", "-3,1,2"])
        #expect(run.status == 0, "\(run.err.text)")
        let camera = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any])?["camera"] as? [String: Any])
        #expect((camera["position"] as? [NSNumber])?.map(\.doubleValue) == [-3, 1, 2])
        #expect(camera["position_source"] as? String == "option")
        #expect(camera["target_source"] as? String == "auto")
        #expect((camera["target"] as? [NSNumber])?.map(\.doubleValue) == (autoCamera["target"] as? [NSNumber])?.map(\.doubleValue))
    }

    @Test func dashWritesThePNGToStdoutAndTextToStderr() throws {
        let run = runCLI([Self.fruit, "--out", "-", "--resolution", "40x30", "--background", "1,1,1", "--verbose"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(Array(run.out.bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let image = try PNGReader.read(bytes: run.out.bytes)
        #expect(image.width == 40 && image.height == 30 && image.channels == 3)
        #expect(run.err.text.contains("frame: RDF (format default) → RUB"))
        #expect(run.err.text.contains("camera: position"))
    }

    /// A JPEG has no alpha: its record says 3 channels whether it went to a file or to stdout
    /// (stdout used to report the rendered buffer's 4).
    @Test func jpegToStdoutIsRecordedWithoutAlpha() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-jpeg-stdout")
        let report = dir.appendingPathComponent("r.json").path
        let run = runCLI([Self.fruit, "--out", "-", "--out-format", "jpeg", "--resolution", "40x30", "--report", report])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(Array(run.out.bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let outputs = try #require(json["outputs"] as? [[String: Any]])
        #expect(outputs.count == 1)
        #expect(outputs.first?["format"] as? String == "jpeg")
        #expect(outputs.first?["channels"] as? Int == 3)
        #expect(run.err.text.contains("40x30 RGB JPEG"), "\(run.err.text)")
    }

    @Test func verboseJSONPrintsTheRunReport() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-json")
        let out = dir.appendingPathComponent("a.png").path
        let run = runCLI([Self.fruit, "-o", out, "--resolution", "16x16", "--verbose", "--json", "--source-frame", "RUB"])
        #expect(run.status == 0, "\(run.err.text)")
        let report = try jsonObject(run.out)
        #expect(report["input"] as? String == Self.fruit)
        #expect((report["frame_decision"] as? [String: Any])?["reason"] as? String == "option")
        #expect((report["ceiling"] as? [String: Any])?["declared_decoded_bytes"] as? Int == 4721 * 236)
    }

    @Test func failuresHaveTheirStatus() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-fail")
        let noOut = runCLI([Self.fruit])
        #expect(noOut.status == 64)
        #expect(noOut.err.text.hasPrefix("error: render needs --out"))
        let out = dir.appendingPathComponent("a.png").path
        let tooLarge = runCLI([Self.fruit, "-o", out, "--max-decoded-bytes", "100K"])
        #expect(tooLarge.status == 75)
        #expect(tooLarge.err.text.hasPrefix("error: too_large: decoded scene would take 1114156 bytes"))
        #expect(!FileManager.default.fileExists(atPath: out))
        let bad = runCLI([Fixtures.vector("bad-ply-truncated.ply"), "-o", out])
        #expect(bad.status == 65)
        #expect(bad.err.text.hasPrefix("error: truncated: "))
        // A view straight along the up direction has no defined orientation.
        let degenerate = runCLI([Self.fruit, "-o", out, "--camera-pos", "0,5,0", "--camera-target", "0,0,0", "--camera-up", "0,1,0"])
        #expect(degenerate.status == 64)
        #expect(degenerate.err.text.hasPrefix("error: invalid_argument: "))
    }

    @Test func standardInputSceneWithJSONReport() throws {
        let dir = try Fixtures.temporaryDirectory("cli-render-stdin")
        let out = dir.appendingPathComponent("seal.png").path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal.splat"))))
        let run = runCLI(["render", "-", "--format", "splat", "--out", out, "--resolution", "24x20", "--json"], stdin: bytes)
        #expect(run.status == 0, "\(run.err.text)")
        let report = try jsonObject(run.out)
        #expect(report["input"] as? String == "-")
        #expect(report["format"] as? String == "splat")
        #expect(report["count"] as? Int == 4)
        let outputs = try #require(report["outputs"] as? [[String: Any]])
        #expect(outputs.first?["path"] as? String == out)
        let image = try PNGReader.read(path: out)
        #expect(image.width == 24 && image.height == 20)
        #expect(outputs.first?["bytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int))
    }
}
