import Foundation
import Testing
import SplatCore
import SplatImage
import TestSupport
@testable import SplatService

@Suite struct JobSpecParserTests {
    /// The job example of the README's "Running a fleet" (docs-drafts/fleet.md until it is
    /// merged): the JSON block after the marker comment. One copy, checked here.
    static func documentedExample() throws -> String {
        let marker = "<!-- job-schema-example -->"
        for name in ["README.md", "docs-drafts/fleet.md"] {
            let url = Fixtures.packageRoot.appendingPathComponent(name)
            guard let text = try? String(contentsOf: url, encoding: .utf8), let at = text.range(of: marker) else { continue }
            let rest = text[at.upperBound...]
            let open = try #require(rest.range(of: "```json\n"))
            let close = try #require(rest[open.upperBound...].range(of: "```"))
            return String(rest[open.upperBound..<close.lowerBound])
        }
        throw SplatError(.io, "no \(marker) in README.md or docs-drafts/fleet.md")
    }

    static func parse(_ json: String, roots: JobLocationRoots = .unconfined) -> Result<JobSpec, SplatError> {
        Result { () throws(SplatError) in try JobSpecParser.parse(json, roots: roots) }
    }

    /// The bad_job message for `json`, or "parsed" when it parsed.
    static func refusal(_ json: String, roots: JobLocationRoots = .unconfined) -> String {
        switch parse(json, roots: roots) {
        case .success: return "parsed"
        case .failure(let error): return error.kind == .badJob ? error.message : "\(error.kind.rawValue): \(error.message)"
        }
    }

    static func job(options: String = "{}", outputs: String) -> String {
        #"{"id": "j", "input": "file:///srv/in/a.spz", "options": \#(options), "outputs": \#(outputs)}"#
    }

    @Test func theDocumentedExampleParses() throws {
        let spec = try JobSpecParser.parse(try Self.documentedExample())
        #expect(spec.id == "scene-123")
        guard case .remote(let input) = spec.input else { Issue.record("input \(spec.input)"); return }
        #expect(input.hasPrefix("https://"))
        #expect(spec.load.limits.maxDecodedBytes == 805_306_368)
        #expect(spec.load.frame.sourceFrame == CoordinateSystem(name: "RUB"))
        #expect(spec.timeoutSeconds == 30)
        #expect(spec.outputs.map(\.kind) == [.image, .sheet, .animation])
        let (image, sheet, animation) = (spec.outputs[0], spec.outputs[1], spec.outputs[2])
        #expect(image.options.viewRequest.width == 512 && image.options.viewRequest.height == 512)
        #expect(image.format == .png && image.contentType == "image/png")
        #expect(sheet.options.sheetPlan.views == 8)
        guard case .remote = sheet.location else { Issue.record("sheet goes to \(sheet.location)"); return }
        #expect(sheet.format == .png, "the format comes from the URL's path, not its query")
        #expect(animation.options.orbitOptions.frames == 36)
        #expect(animation.options.viewRequest.width == 256)
        #expect(animation.format == nil && animation.contentType == "image/webp")
        // Options the outputs do not set keep the command's defaults.
        #expect(sheet.options.viewRequest.width == 512 && sheet.options.sheetPlan.downscale == SheetPlan.defaultDownscale)
    }

    @Test func valuesUseTheCommandLineSyntaxAndJSONTypes() throws {
        let spec = try JobSpecParser.parse(Self.job(
            options: #"{"max-decoded-bytes": "64M", "flip": true, "strict": false, "timeout": 2.5, "background": [1, 0.5, 0],"#
                + #" "camera-up": "0,0,1", "sh-degree": 0, "sheet-elevations": [10, 40]}"#,
            outputs: #"[{"kind": "image", "to": "file:///srv/out/a.webp", "camera-pos": [1, 2, 3], "quality": 80},"#
                + #" {"kind": "sheet", "to": "file:///srv/out/s.png", "sheet-views": "4"}]"#))
        #expect(spec.load.limits.maxDecodedBytes == 64 << 20)
        #expect(spec.load.frame.flip && !spec.load.limits.strict)
        #expect(spec.timeoutSeconds == 2.5)
        let image = spec.outputs[0].options, sheet = spec.outputs[1].options
        #expect(image.viewRequest.settings.background == SIMD3<Float>(1, 0.5, 0))
        #expect(image.viewRequest.camera.position == SIMD3(1, 2, 3))
        #expect(image.viewRequest.camera.up == SIMD3(0, 0, 1))
        #expect(image.imageEncoding.quality == 80)
        #expect(spec.outputs[0].format == .webp)
        #expect(sheet.sheetPlan.views == 4 && sheet.sheetPlan.elevationsDegrees == [10, 40])
        #expect(sheet.viewRequest.camera.position == nil, "camera-pos is render's: a sheet does not take it")
        #expect(sheet.viewRequest.settings.maxShDegree == 0, "job options reach every output that takes them")
    }

    @Test func unknownKeysAndBadValuesAreBadJobs() {
        let image = #"[{"kind": "image", "to": "file:///srv/out/a.png"}]"#
        #expect(Self.refusal(Self.job(options: #"{"resolutoin": "64x64"}"#, outputs: image))
                == #"options: unknown option "resolutoin"; did you mean "resolution"?"#)
        #expect(Self.refusal(Self.job(options: #"{"resolution": "huge"}"#, outputs: image))
                .hasPrefix("options: invalid value 'huge' for --resolution: expected WxH"))
        #expect(Self.refusal(Self.job(options: #"{"frames": 0}"#, outputs: image))
                == "options: invalid value '0' for --frames: expected a whole number from 1 to 3600")
        #expect(Self.refusal(Self.job(options: #"{"flip": "yes"}"#, outputs: image)) == #"options: "flip" is a switch: give true or false"#)
        #expect(Self.refusal(Self.job(options: #"{"timeout": true}"#, outputs: image))
                == #"options: "timeout" takes a string or a number, not a boolean"#)
        #expect(Self.refusal(Self.job(options: #"{"out": "x.png"}"#, outputs: image))
                == #"options: "out" is set by the worker or the command line, not by a job"#)
        #expect(Self.refusal(Self.job(options: #"{"memory-budget": 1}"#, outputs: image)).contains("not by a job"))
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "image", "to": "file:///srv/out/a.png", "timeout": 3}]"#))
                == #"outputs[0]: "timeout" applies to the whole job (its scene is read once); put it in "options""#)
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "image", "to": "file:///srv/out/a.png", "frames": 3}]"#))
                == #"outputs[0]: "frames" does not apply to an image output"#)
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "sheet", "to": "file:///srv/out/a.png", "camera-pos": "1,2,3"}]"#))
                == #"outputs[0]: "camera-pos" does not apply to a sheet output"#)
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "video", "to": "file:///srv/out/a.png"}]"#))
                == #"outputs[0]: "kind" must be one of image, sheet, animation"#)
        #expect(Self.refusal(#"{"id": "j", "input": "file:///a.spz", "outputs": [], "priority": 1}"#)
                == #"unknown key "priority"; a job has id, input, options and outputs"#)
        #expect(Self.refusal(#"{"id": "j", "input": "file:///a.spz", "outputs": []}"#) == #""outputs" must be an array of 1…32 outputs"#)
        #expect(Self.refusal(#"{"input": "file:///a.spz", "outputs": []}"#).hasPrefix(#""id" must be a string"#))
        #expect(Self.refusal("[1, 2]").hasPrefix("the job must be a JSON object"))
        #expect(Self.refusal("{\"id\": ").hasPrefix("the job is not valid JSON"))
        #expect(Self.refusal(String(repeating: "[", count: 100_000)) == "the job nests deeper than 16 levels")
        #expect(Self.refusal("\"" + String(repeating: "x", count: 2 << 20) + "\"").hasPrefix("the job is 2097154 bytes"))
    }

    @Test func formatsComeFromTheTargetOrOutFormat() throws {
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "image", "to": "https://up.example/put/obj?sig=1"}]"#))
                .hasPrefix("outputs[0]: cannot tell the image format of https://up.example/put/obj"))
        let named = try JobSpecParser.parse(Self.job(outputs: #"[{"kind": "sheet", "to": "https://up.example/o?x=1.png", "out-format": "jpg"}]"#))
        #expect(named.outputs[0].format == .jpeg && named.outputs[0].contentType == "image/jpeg")
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "animation", "to": "file:///srv/out/spin.gif"}]"#))
                == "outputs[0]: an animation is an animated WebP; name it .webp, not .gif")
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "animation", "to": "file:///srv/out/a.webp", "out-format": "png"}]"#))
                == #"outputs[0]: "out-format" does not apply to an animation output"#)
        // The job's quality is for the lossy stills; a PNG's own quality is refused as --quality is.
        let mixed = try JobSpecParser.parse(Self.job(options: #"{"quality": 70}"#,
                                                     outputs: #"[{"kind": "image", "to": "file:///o/a.png"}, {"kind": "sheet", "to": "file:///o/s.jpg"}]"#))
        #expect(mixed.outputs[0].options.imageEncoding.quality == nil)
        #expect(mixed.outputs[1].options.imageEncoding.quality == 70)
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "image", "to": "file:///o/a.png", "quality": 70}]"#))
                .hasPrefix("outputs[0]: PNG is lossless and takes no quality"))
        #expect(Self.refusal(Self.job(outputs: #"[{"kind": "image", "to": "file:///o/a.png"}, {"kind": "sheet", "to": "file:///o/./a.png"}]"#))
                == "outputs[1]: another output already writes to file:///o/a.png")
    }

    @Test func locationsAreConfinedBeforeAnythingIsRead() throws {
        let dir = try Fixtures.temporaryDirectory("spec-roots")
        defer { try? FileManager.default.removeItem(at: dir) }
        let inputs = dir.appendingPathComponent("in"), outputs = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
        let roots = try JobLocationRoots(inputRoot: inputs.path, outputRoot: outputs.path)
        let out = "file://\(outputs.path)/x.png", inside = "file://\(inputs.path)/a.spz"
        func job(_ input: String, _ to: String) -> String {
            #"{"id": "j", "input": "\#(input)", "outputs": [{"kind": "image", "to": "\#(to)"}]}"#
        }
        #expect(Self.refusal(job(inside, out), roots: roots) == "parsed")
        #expect(Self.refusal(job("file:///etc/hostname", out), roots: roots).contains("outside the input root"))
        #expect(Self.refusal(job("file://\(inputs.path)/../in/a.spz", out), roots: roots).contains("'..' segments are not allowed"))
        #expect(Self.refusal(job("file://\(inputs.path)/%2e%2e/in/a.spz", out), roots: roots).contains("'..' segments are not allowed"))
        #expect(Self.refusal(job(inside, "file:///tmp/x.png"), roots: roots).contains("outside the output root"))
        #expect(Self.refusal(job("gopher://127.0.0.1/a.spz", out), roots: roots).contains("scheme gopher is not allowed"))
        #expect(Self.refusal(job("ftp://127.0.0.1/a.spz", out), roots: roots).contains("scheme ftp is not allowed"))
        #expect(Self.refusal(job("file://server/\(inputs.path)/a.spz", out), roots: roots).contains("on another host"))
        #expect(Self.refusal(job(inside, "ftp://127.0.0.1/x.png"), roots: roots).contains("scheme ftp is not allowed"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: outputs.path).isEmpty)
    }

    @Test func theIDOfAJobThatDoesNotParse() {
        #expect(JobSpecParser.id(in: #"{"id": "scene-9", "input": 3}"#) == "scene-9")
        #expect(JobSpecParser.id(in: "not json") == nil)
        #expect(JobSpecParser.id(in: #"{"id": 9}"#) == nil)
    }
}
