import Foundation
import Testing
import SplatService
import SplatCore
import SplatFormats
import TestSupport
@testable import SplatRenderCLI

/// Runs a command in-process and returns (status, stdout, stderr).
func runCLI(_ args: [String], stdin: [UInt8] = []) -> (status: Int32, out: CapturedOutput, err: CapturedOutput) {
    let out = CapturedOutput(), err = CapturedOutput()
    let status = CommandRunner.run(args, stdin: .bytes(stdin), stdout: out, stderr: err)
    return (status, out, err)
}

/// Parses captured stdout as a JSON object.
func jsonObject(_ output: CapturedOutput) throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(output.bytes))
    return try #require(value as? [String: Any])
}

@Suite struct InfoCommandTests {
    @Test func jsonMatchesTheExpectedVector() throws {
        let entry = try #require(try Fixtures.expectedVectors()["tiny-3dgs-le.ply"])
        let run = runCLI(["info", Fixtures.vector("tiny-3dgs-le.ply"), "--json"])
        #expect(run.status == 0, "\(run.err.text)")
        #expect(run.err.bytes.isEmpty)
        let info = try jsonObject(run.out)
        #expect(info["format"] as? String == "ply")
        #expect(info["count"] as? Int == entry["num_points"] as? Int)
        #expect(info["count"] as? Int == 2)
        #expect(info["sh_degree"] as? Int == entry["sh_degree"] as? Int)
        #expect(info["sh_degree"] as? Int == 1)
        #expect(info["model"] as? String == entry["model"] as? String)
        #expect(info["model"] as? String == "antialiased")
        #expect(info["version"] is NSNull)
        let frame = try #require(info["frame_decision"] as? [String: Any])
        #expect(frame["source_frame"] as? String == "RDF")
        #expect(frame["reason"] as? String == "format_default")
        #expect(frame["render_frame"] as? String == "RUB")
        let ceiling = try #require(info["ceiling"] as? [String: Any])
        #expect(ceiling["declared_decoded_bytes"] as? Int == 2 * 92)
        #expect(ceiling["fits_service_ceiling"] as? Bool == true)
        #expect(ceiling["fits_limit"] as? Bool == true)
        #expect(ceiling["max_decoded_bytes"] as? Int == 805_306_368)
        let details = try #require(info["details"] as? [String: Any])
        #expect(details["ply_format"] as? String == "binary_little_endian")
        #expect(info["bounds"] == nil, "bounds only when asked")
    }

    @Test func declaredFrameAndCameraHintsOfAnSPZ() throws {
        let run = runCLI(["info", "--json", Fixtures.vector("sh1-ext-v4.spz")])
        #expect(run.status == 0, "\(run.err.text)")
        let info = try jsonObject(run.out)
        #expect(info["version"] as? Int == 4)
        #expect(info["count"] as? Int == 3)
        #expect(info["declared_frame"] as? String == "RDF")
        let frame = try #require(info["frame_decision"] as? [String: Any])
        #expect(frame["source_frame"] as? String == "RDF")
        #expect(frame["reason"] as? String == "file_declaration")
        let hints = try #require(info["camera_hints"] as? [String: Any])
        #expect((hints["elevation_min"] as? NSNumber)?.doubleValue == -0.25)
        #expect((hints["elevation_max"] as? NSNumber)?.doubleValue == 1.0)
        #expect((hints["radius_min"] as? NSNumber)?.doubleValue == 2.5)
        let warnings = try #require(info["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("0x12340001") })
    }

    @Test func sourceFrameOptionAndSHTruncationChangeTheReport() throws {
        let run = runCLI(["info", "--json", Fixtures.vector("tiny-3dgs-le.ply"), "--source-frame", "opengl",
                          "--flip", "--max-sh-degree", "0"])
        #expect(run.status == 0, "\(run.err.text)")
        let info = try jsonObject(run.out)
        let frame = try #require(info["frame_decision"] as? [String: Any])
        #expect(frame["source_frame"] as? String == "RUB")
        #expect(frame["reason"] as? String == "option")
        #expect(frame["flip"] as? Bool == true)
        let ceiling = try #require(info["ceiling"] as? [String: Any])
        #expect(ceiling["kept_sh_degree"] as? Int == 0)
        #expect(ceiling["declared_decoded_bytes"] as? Int == 2 * 56)
        #expect(info["sh_degree"] as? Int == 1, "the file's own degree is still reported")
    }

    @Test func aFileOverTheLimitIsReportedNotRefused() throws {
        let run = runCLI(["info", "--json", Fixtures.vector("bomb-v2-4mib.spz"), "--max-decoded-bytes", "1MiB"])
        #expect(run.status == 0, "\(run.err.text)")
        let info = try jsonObject(run.out)
        #expect(info["count"] as? Int == 220_000)
        let ceiling = try #require(info["ceiling"] as? [String: Any])
        #expect(ceiling["declared_decoded_bytes"] as? Int == 220_000 * 56)
        #expect(ceiling["max_decoded_bytes"] as? Int == 1 << 20)
        #expect(ceiling["fits_limit"] as? Bool == false)
        #expect(ceiling["fits_service_ceiling"] as? Bool == true)
        let text = runCLI(["info", Fixtures.vector("bomb-v2-4mib.spz"), "--max-decoded-bytes", "1M"])
        #expect(text.status == 0)
        #expect(text.out.text.contains("EXCEEDS --max-decoded-bytes 1048576"))
    }

    @Test func boundsDecodeTheScene() throws {
        let entry = try #require(try Fixtures.expectedVectors()["tiny-3dgs-le.ply"])
        let splats = try #require(entry["splats"] as? [[String: Any]])
        let positions = splats.compactMap { ($0["position"] as? [NSNumber])?.map(\.doubleValue) }
        let run = runCLI(["info", "--json", "--bounds", Fixtures.vector("tiny-3dgs-le.ply")])
        #expect(run.status == 0, "\(run.err.text)")
        let bounds = try #require(try jsonObject(run.out)["bounds"] as? [String: Any])
        let lo = try #require(bounds["min"] as? [NSNumber]).map(\.doubleValue)
        let hi = try #require(bounds["max"] as? [NSNumber]).map(\.doubleValue)
        #expect(bounds["count"] as? Int == 2)
        for axis in 0..<3 {
            #expect(abs(lo[axis] - positions.map { $0[axis] }.min()!) < 1e-6)
            #expect(abs(hi[axis] - positions.map { $0[axis] }.max()!) < 1e-6)
        }
    }

    @Test func boundsOverTheLimitExit75AfterTheReport() throws {
        let run = runCLI(["info", "--json", "--bounds", Fixtures.vector("bomb-v2-4mib.spz"), "--max-decoded-bytes", "1M"])
        #expect(run.status == 75)
        #expect(run.err.text.hasPrefix("error: too_large: "))
        #expect(run.err.text.contains("12320000"))
        #expect(run.err.text.contains("1048576"))
        let info = try jsonObject(run.out)
        #expect(info["bounds"] is NSNull)
        #expect((info["bounds_error"] as? [String: Any])?["kind"] as? String == "too_large")
    }

    @Test func standardInputNeedsTheFormatForDotSplat() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal.splat"))))
        let refused = runCLI(["info", "-"], stdin: bytes)
        #expect(refused.status == 65)
        #expect(refused.err.text.contains("--format splat"))
        let run = runCLI(["info", "-", "--format", "splat", "--json", "--bounds"], stdin: bytes)
        #expect(run.status == 0, "\(run.err.text)")
        let info = try jsonObject(run.out)
        #expect(info["file"] as? String == "-")
        #expect(info["format"] as? String == "splat")
        #expect(info["count"] as? Int == 4)
        #expect((info["bounds"] as? [String: Any])?["count"] as? Int == 4)
    }

    @Test func badFilesExit65WithKindAndLocation() {
        let run = runCLI(["info", Fixtures.vector("bad-v4-count.spz")])
        #expect(run.status == 65)
        #expect(run.err.text.hasPrefix("error: implausible_count: "))
        #expect(run.err.text.contains("bad-v4-count.spz"))
        #expect(run.out.bytes.isEmpty)
    }

    @Test func quietSilencesTheReport() {
        let run = runCLI(["info", Fixtures.vector("tiny-3dgs-le.ply"), "-q"])
        #expect(run.status == 0)
        #expect(run.out.bytes.isEmpty && run.err.bytes.isEmpty)
    }
}
