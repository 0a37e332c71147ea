import Foundation
import SplatCore
import SplatFormats

/// glTF decode time beside its floors, on a scene written by our own encoder: the plain `.glb`
/// (float attributes, one view each) beside a parallel copy of the file's bytes into fresh
/// memory, and the SPZ-compressed `.glb` beside our SPZ decoder on the same payload bytes (the
/// glTF layer's cost is then the JSON, the checks and the frame facts).
///
/// `splat-bench gltf-decode SCENE [--repeat N] [--keep DIR]` prints best-of-N wall and CPU times
/// and the ratios; `run` reports the same as figures through `figures(for:)` for every SPZ v4
/// input of the decode suite (the stress scene in a full run).
enum GLTFDecodeBenchmark {
    /// The two files written for `scene`, in `folder`.
    struct Files {
        var plain: String
        var spz: String
        var payload: Range<Int>
        var splats: Int
    }

    /// Decodes `source`, flattens and converts it to glTF's LUF, and writes both forms.
    static func write(from source: String, into folder: String) throws -> Files {
        let decoded = try SplatFile.decode(path: source)
        let scene = try SceneTransform.flatten(decoded.scene)
        let decided = FrameDecision.decide(for: scene)
        FrameDecision(sourceFrame: decided.sourceFrame, reason: decided.reason, renderFrame: .luf).apply(to: scene)
        let plain = try GLTFEncoder.encode(scene)
        let spz = try GLTFEncoder.encode(scene, options: .init(compression: .spz))
        let files = Files(plain: (folder as NSString).appendingPathComponent("scene.glb"),
                          spz: (folder as NSString).appendingPathComponent("scene.spz.glb"), payload: spz.payload!, splats: plain.count)
        try Data(plain.bytes).write(to: URL(fileURLWithPath: files.plain))
        try Data(spz.bytes).write(to: URL(fileURLWithPath: files.spz))
        return files
    }

    static func run(_ arguments: [String]) -> Int32 {
        var source: String?
        var repeats = 5
        var keep: String?
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--repeat": repeats = rest.popFirst().flatMap(Int.init) ?? repeats
            case "--keep": keep = rest.popFirst()
            default: source = argument
            }
        }
        guard let source else {
            FileHandle.standardError.write(Data("usage: splat-bench gltf-decode SCENE [--repeat N] [--keep DIR]\n".utf8))
            return 2
        }
        do {
            let folder = keep ?? NSTemporaryDirectory() + "splat-bench-gltf-\(getpid())"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { if keep == nil { try? FileManager.default.removeItem(atPath: folder) } }
            let files = try write(from: source, into: folder)
            let plainBytes = DecodeInput.bytesOnDisk(files.plain), spzBytes = DecodeInput.bytesOnDisk(files.spz)
            print("\(files.splats) splats: plain .glb \(plainBytes) bytes, SPZ .glb \(spzBytes) bytes (payload \(files.payload.count))")
            let copy = try SPZDecodeBenchmark.best(of: repeats) { _ = try copyFile(files.plain) }
            let plain = try SPZDecodeBenchmark.best(of: repeats) { _ = try SplatFile.decode(path: files.plain) }
            let payload = try SPZDecodeBenchmark.best(of: repeats) { _ = try decodePayload(files) }
            let compressed = try SPZDecodeBenchmark.best(of: repeats) { _ = try SplatFile.decode(path: files.spz) }
            let ms = SPZDecodeBenchmark.milliseconds
            for (name, t) in [("memcpy of the plain .glb (fresh, THP)", copy), ("glTF decode, plain .glb", plain),
                              ("SPZDecoder on the payload", payload), ("glTF decode, SPZ .glb", compressed)] {
                print(name.padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%8.1f ms wall %8.1f ms cpu", ms(t.wall), t.cpu * 1000))
            }
            print(String(format: "ratio plain decode / memcpy: %.2f wall, %.2f cpu", ms(plain.wall) / ms(copy.wall), plain.cpu / copy.cpu))
            print(String(format: "ratio SPZ .glb decode / SPZ payload decode: %.2f wall, %.2f cpu",
                         ms(compressed.wall) / ms(payload.wall), compressed.cpu / payload.cpu))
            return 0
        } catch {
            FileHandle.standardError.write(Data("gltf-decode: \(error)\n".utf8))
            return 1
        }
    }

    /// The plain file's floor: map it and copy its bytes into fresh huge-page memory.
    static func copyFile(_ path: String) throws -> [AnyObject] {
        let file = try InputBytes(path: path)
        let out = FreshBuffer(file.bytes.count, hugePages: true)
        RawBaselines.parallelCopy(file.bytes, into: out)
        return [file, out]
    }

    /// The compressed file's floor: map it and decode the SPZ payload, as `SplatFile` then does.
    static func decodePayload(_ files: Files) throws -> SplatScene {
        let file = try InputBytes(path: files.spz)
        let scene = try SPZDecoder.decode(UnsafeRawBufferPointer(rebasing: file.bytes[files.payload]), file: files.spz,
                                          limits: DecodeLimits()).scene
        try NonFiniteFilter.apply(to: scene, strict: false)
        return scene
    }

    /// The decode suite's figures for `input` (written to a temporary folder, removed after).
    static func figures(for input: DecodeInput, stopwatch: Stopwatch, report: Report) throws {
        let folder = NSTemporaryDirectory() + "splat-bench-gltf-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        report.progress("decode glTF written from \(input.path)")
        let files = try write(from: input.path, into: folder)
        let details: [(String, JSONScalar)] = [("input", .string(input.path)), ("splats", .int(files.splats)),
                                               ("plain_bytes", .int(DecodeInput.bytesOnDisk(files.plain))),
                                               ("spz_bytes", .int(DecodeInput.bytesOnDisk(files.spz)))]
        let key = "\(input.scene)"
        let copy = try stopwatch.measure { try copyFile(files.plain) }
        let plain = try stopwatch.measure { try SplatFile.decode(path: files.plain) }
        let payload = try stopwatch.measure { try decodePayload(files) }
        let compressed = try stopwatch.measure { try SplatFile.decode(path: files.spz) }
        let copyName = "baseline.memcpy_fresh_thp.gltf.\(key)", payloadName = "baseline.spz_payload.gltf_spz.\(key)"
        report.add(Figure(suite: "decode", name: copyName, unit: "ms", sample: copy,
                          note: "the plain .glb's bytes into fresh memory with huge pages advised", details: details))
        report.add(Figure(suite: "decode", name: "decode.gltf.\(key)", unit: "ms", sample: plain,
                          baseline: .init(figure: copyName, value: copy.median),
                          note: "plain KHR_gaussian_splatting .glb written by GLTFEncoder", details: details))
        report.add(Figure(suite: "decode", name: payloadName, unit: "ms", sample: payload,
                          note: "SPZDecoder on the same file's SPZ payload (plus the non-finite filter)", details: details))
        report.add(Figure(suite: "decode", name: "decode.gltf_spz.\(key)", unit: "ms", sample: compressed,
                          baseline: .init(figure: payloadName, value: payload.median),
                          note: "KHR_gaussian_splatting_compression_spz_2 .glb (gzip SPZ v3 payload)", details: details))
    }
}
