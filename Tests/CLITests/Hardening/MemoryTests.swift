import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatImage
import TestSupport

/// Issue 12, item 8: a job's `estimated_peak_bytes` counts everything it allocates. Before,
/// four 776 KB SOGs (count 1, five 6300² WebPs) with `--jobs 4` peaked at 5.0 GiB while each
/// line said `declared_decoded_bytes: 56`; 21 KB SOGs whose meta.json held 10M numbers and
/// tiny SPZ v4 files of millions of splats were as far off.
///
/// Each job runs alone in a child process; its peak is the larger of the report's
/// `peak_rss_bytes` (VmHWM when the job ended) and the child's VmHWM sampled while it ran. The estimate
/// leaves out the process itself (code, libraries, runtime, threads), so the check is
/// peak ≤ estimate + idle + `runNoise`, where idle is the largest peak of trivial runs (a few
/// splats, 8×8) of each format family: each family maps its own libraries (libwebp, zlib, zstd)
/// and code.
// Not serialized: each peak belongs to its own child process, whatever runs beside it.
@Suite struct HardeningMemoryTests {
    struct Measured: CustomStringConvertible {
        var name: String
        var status: String
        var peak: Int
        var estimate: Int?
        var terms: [String: Int]
        var seconds: Double

        var description: String {
            let mib = { (b: Int) in String(format: "%.1f", Double(b) / 1_048_576) }
            let parts = ["input_bytes", "scene_bytes", "decode_scratch_bytes", "render_bytes", "output_bytes"]
                .map { "\($0.replacingOccurrences(of: "_bytes", with: "")) \(mib(terms[$0] ?? 0))" }.joined(separator: ", ")
            return "\(name): \(status), peak \(mib(peak)) MiB, estimate \(estimate.map(mib) ?? "-") MiB (\(parts)), \(String(format: "%.2f", seconds)) s"
        }
    }

    /// Renders `input` once in a child process with a report, and reads the peak and estimate.
    static func measure(_ input: String, name: String? = nil, in dir: URL, arguments: [String] = ["--resolution", "32x32"]) throws -> Measured {
        let report = dir.appendingPathComponent("memory-report.json").path
        FileIO.remove(report)
        let run = try Hardening.run([input, "--out", dir.appendingPathComponent("memory.png").path, "--report", report] + arguments,
                                    in: dir, timeout: .seconds(120))
        let json = (try? Hardening.json([UInt8](Data(contentsOf: URL(fileURLWithPath: report))))) ?? [:]
        let peak = try #require([run.peakResidentBytes, json["peak_rss_bytes"] as? Int].compactMap { $0 }.max(),
                                "\(name ?? input): \(String(describing: run.termination))")
        let terms = (json["memory_estimate"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
        return Measured(name: name ?? (input as NSString).lastPathComponent, status: json["status"] as? String ?? "no report",
                        peak: peak, estimate: json["estimated_peak_bytes"] as? Int, terms: terms, seconds: run.seconds)
    }

    /// The largest peak of trivial runs, one per format family (measured once per test process).
    static func idle(in dir: URL) throws -> Int {
        try idleOnce.get()
    }

    private static let idleOnce = Result { () throws -> Int in try measureIdle(in: try Hardening.folder("memory-idle")) }

    private static func measureIdle(in dir: URL) throws -> Int {
        var peaks: [Int] = []
        // glTF (plain, with SH 3 and with an SPZ payload) and .ksplat too: the corpus glTF files
        // peaked up to 0.3 MiB above an idle that left their code out (the SH 3 one by 64 KB).
        for vector in ["minimal-v4.spz", "minimal-v2.spz", "tiny-3dgs-le.ply", "tiny.sog", "minimal.splat",
                       "gltf/minimal.glb", "gltf/early-draft.gltf", "gltf/sh3-datauri.gltf", "gltf/spz2.glb",
                       "gltf/minimal-l0.ksplat"] {
            for _ in 0..<2 {
                peaks.append(try measure(Fixtures.vector(vector), in: dir, arguments: ["--resolution", "8x8"]).peak)
            }
        }
        let idle = try #require(peaks.max())
        print("memory: idle \(idle) bytes (trivial runs \(peaks.min() ?? 0)…\(idle))")
        return idle
    }

    /// `measure`, repeated up to twice more while the peak is over estimate + idle + noise, keeping the
    /// lowest peak. A process's peak varies by a few hundred KB from run to run (which code pages
    /// and thread stacks it touches); an undercount is there in every run, noise is not.
    static func measureSteadily(_ input: String, name: String? = nil, in dir: URL, idle: Int) throws -> Measured {
        var best = try measure(input, name: name, in: dir)
        for _ in 0..<2 {
            guard let estimate = best.estimate, best.peak > estimate + idle + runNoise else { break }
            let again = try measure(input, name: name, in: dir)
            if again.peak < best.peak { best = again }
        }
        return best
    }

    /// How far a trivial run's peak may stray above the largest of the trivial runs measured
    /// first, with other suites loading the machine meanwhile: a corpus glb of a few splats (an
    /// estimate of 70 KB) once peaked 60 KB over idle in a CI run and under it in every local
    /// one. An undercounted estimate is megabytes (a scene's per-splat tables), and is there in
    /// every run.
    static let runNoise = 512 << 10

    static func check(_ m: Measured, idle: Int) {
        print("memory: \(m)")
        guard let estimate = m.estimate else { return }
        let allowed = estimate + idle + runNoise
        #expect(m.peak <= allowed, "\(m.name): peak \(m.peak) > estimate \(estimate) + idle \(idle) + noise \(runNoise) by \(m.peak - allowed) bytes")
    }

    @Test func everyCorpusFileStaysWithinItsEstimate() throws {
        let dir = try Hardening.folder("memory-corpus")
        let idle = try Self.idle(in: dir)
        let files = try #require(try Fixtures.manifest()["files"] as? [[String: Any]]).compactMap { $0["file"] as? String }
        var measured = 0
        for file in files {
            let m = try Self.measureSteadily(Fixtures.corpusFile(file), name: file, in: dir, idle: idle)
            if m.status == "ok" {
                measured += 1
                Self.check(m, idle: idle)
            } else {
                // glTF and .ksplat are not decoded on this branch; a refused file has no estimate.
                print("memory: \(file): \(m.status), not measured")
            }
        }
        #expect(measured >= 15, "\(measured) of \(files.count) corpus files decoded")
    }

    // MARK: Amplification inputs

    static let side = 4096

    /// meta.json for one splat (SOG v2, no higher SH); `padding` extra values under a key the
    /// decoder ignores.
    static func meta(count: Int = 1, padding: Int = 0) -> [UInt8] {
        let book = (0..<256).map { String(format: "%.4f", -10 + Double($0) * 0.05) }.joined(separator: ",")
        var text = "{\"version\":2,\"count\":\(count),\"means\":{\"mins\":[-1,-1,-1],\"maxs\":[1,1,1],\"files\":[\"means_l.webp\",\"means_u.webp\"]},"
            + "\"scales\":{\"codebook\":[\(book)],\"files\":[\"scales.webp\"]},\"quats\":{\"files\":[\"quats.webp\"]},"
            + "\"sh0\":{\"codebook\":[\(book)],\"files\":[\"sh0.webp\"]}"
        if padding > 0 { text += ",\"padding\":[" + Array(repeating: "0", count: padding).joined(separator: ",") + "]" }
        return Array((text + "}").utf8)
    }

    /// A bundled SOG: `meta` and the same WebP as all five per-splat images.
    static func bundle(meta: [UInt8], image: [UInt8], to url: URL) throws {
        let items = [TestZipWriter.Item(name: "meta.json", data: meta, method: 8)]
            + ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp"].map { TestZipWriter.Item(name: $0, data: image) }
        try Data(TestZipWriter.build(items)).write(to: url)
    }

    /// count 1, five `side`² lossless WebPs: a few kilobytes that decode to 5 × 64 MiB. Uniform
    /// images are a one-colour palette to libwebp; a gradient of 4,096 colours is not, and
    /// libwebp then holds the whole image as ARGB while decoding it.
    static func imageBomb(at url: URL, gradient: Bool = false) throws {
        var pixels: [UInt8]
        if gradient {
            let row = (0..<side).flatMap { x -> [UInt8] in [UInt8(x & 255), UInt8(x >> 4), 128, 255] }
            pixels = []
            pixels.reserveCapacity(side * side * 4)
            for _ in 0..<side { pixels += row }
        } else {
            pixels = [UInt8](repeating: 128, count: side * side * 4)
        }
        let webp = try WebPWriter.encode(ImageBuffer(width: side, height: side, channels: 4, pixels: pixels), effort: 0)
        try bundle(meta: meta(), image: webp, to: url)
    }

    /// A 16² SOG whose meta.json holds a million numbers (deflated to a few KB).
    static func metaBomb(at url: URL) throws {
        let webp = try WebPWriter.encode(ImageBuffer(width: 16, height: 16, channels: 4, pixels: [UInt8](repeating: 128, count: 16 * 16 * 4)))
        try bundle(meta: meta(count: 200, padding: 1_000_000), image: webp, to: url)
    }

    /// An SPZ v4 of 200,000 identical-but-for-position splats on a grid: small on disk, 11 MiB
    /// decoded (14.35M splats would not render in a debug build's time).
    static func spzBomb(at url: URL) throws {
        let n = 200_000
        let scene = SplatScene(count: n, shDegree: 0, zeroed: true)
        for i in 0..<n {
            scene.x[i] = Float(i % 100) / 50 - 1
            scene.y[i] = Float((i / 100) % 100) / 50 - 1
            scene.z[i] = Float(i / 10_000) / 15 - 1
            scene.logScaleX[i] = -5; scene.logScaleY[i] = -5; scene.logScaleZ[i] = -5
            scene.rotW[i] = 1
            scene.alpha[i] = 0.8
        }
        try Data(SPZEncoder.encode(scene)).write(to: url)
    }

    @Test(arguments: ["images", "gradient images", "meta", "spz"])
    func amplificationInputStaysWithinItsEstimate(_ kind: String) throws {
        let dir = try Hardening.folder("memory-\(kind.replacingOccurrences(of: " ", with: "-"))")
        let input = dir.appendingPathComponent(kind == "spz" ? "bomb.spz" : "bomb.sog")
        switch kind {
        case "images": try Self.imageBomb(at: input)
        case "gradient images": try Self.imageBomb(at: input, gradient: true)
        case "meta": try Self.metaBomb(at: input)
        default: try Self.spzBomb(at: input)
        }
        let size = try #require(FileIO.status(atPath: input.path)?.size)
        let idle = try Self.idle(in: dir)
        let m = try Self.measureSteadily(input.path, name: "\(kind) bomb (\(size) bytes)", in: dir, idle: idle)
        #expect(m.status == "ok")
        Self.check(m, idle: idle)
    }

    /// Four image bombs, `--jobs 4`, a budget just above one job's estimate: they run one at a
    /// time, so the batch peaks no higher than one of them alone (+ 20 %).
    @Test func fourImageBombsUnderABudgetPeakLikeOne() throws {
        let dir = try Hardening.folder("memory-batch")
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Self.imageBomb(at: input.appendingPathComponent("b0.sog"))
        for k in 1..<4 { try Hardening.copy(input.appendingPathComponent("b0.sog").path, to: input.appendingPathComponent("b\(k).sog")) }
        let alone = try Self.measure(input.appendingPathComponent("b0.sog").path, name: "one image bomb", in: dir)
        let estimate = try #require(alone.estimate)
        let budget = estimate + estimate / 20
        let report = dir.appendingPathComponent("r.jsonl").path
        let run = try Hardening.run(["thumbnails", input.path, "--out-dir", dir.appendingPathComponent("out").path, "--jobs", "4",
                                     "--memory-budget", String(budget), "--report", report, "--resolution", "32x32"],
                                    in: dir, timeout: .seconds(120))
        #expect(run.status == 0, "\(run.errText)")
        let lines = try Hardening.reportLines(report)
        #expect(lines.count == 4 && lines.allSatisfy { $0["status"] as? String == "ok" })
        #expect(lines.allSatisfy { $0["estimated_peak_bytes"] as? Int == estimate })
        let peak = try #require(([run.peakResidentBytes] + lines.map { $0["peak_rss_bytes"] as? Int }).compactMap { $0 }.max())
        print(String(format: "memory: four image bombs, --jobs 4, --memory-budget %d: peak %d bytes = %.2f× one alone (%d); %.2f s",
                     budget, peak, Double(peak) / Double(alone.peak), alone.peak, run.seconds))
        #expect(Double(peak) <= 1.2 * Double(alone.peak), "batch \(peak), one alone \(alone.peak)")
    }

    /// An SPZ v4 file is read in slices too (`SPZDecoder.decode(file:)`): its estimate counts the
    /// bytes through its TOC and a slice per stream, not the file, and its peak stays within it;
    /// a legacy (gzip) SPZ of the same scene is read whole and counts in full.
    @Test func spzV4CountsOnlyItsSlices() throws {
        let dir = try Hardening.folder("memory-spz-slices")
        let idle = try Self.idle(in: dir)
        let count = 300_000
        let scene = SplatScene(count: count, shDegree: 3)
        var random = SplitMix64(seed: 5)
        for i in 0..<count {
            scene.x[i] = Float.random(in: -1...1, using: &random)
            scene.y[i] = Float.random(in: -1...1, using: &random)
            scene.z[i] = Float.random(in: -1...1, using: &random)
            (scene.logScaleX[i], scene.logScaleY[i], scene.logScaleZ[i]) = (-4, -4, -4)
            (scene.rotW[i], scene.rotX[i], scene.rotY[i], scene.rotZ[i]) = (1, 0, 0, 0)
            scene.alpha[i] = 0.8
            (scene.dcR[i], scene.dcG[i], scene.dcB[i]) = (0.2, 0.1, -0.1)
        }
        // Random SH codes: the file is mostly its SH stream, far larger than the slices.
        for j in 0..<scene.sh.count { scene.sh[j] = Float.random(in: -0.9...0.9, using: &random) }
        for version in [4, 3] {
            let path = dir.appendingPathComponent("random.v\(version).spz")
            let bytes = try SPZEncoder.encode(scene, options: SPZEncoder.Options(version: version, compressionLevel: 1))
            try Data(bytes).write(to: path)
            let m = try Self.measure(path.path, in: dir)
            #expect(m.status == "ok", "v\(version): \(m.status)")
            let input = try #require(m.terms["input_bytes"], "v\(version)")
            if version == 4 {
                // The TOC ends within the first kilobyte; six streams, a 1 MiB slice each.
                #expect(input > 6 << 20 && input <= (6 << 20) + 1024 && input < bytes.count,
                        "v4: input_bytes \(input) of a \(bytes.count)-byte file")
            } else {
                #expect(input == bytes.count, "v3: input_bytes \(input) of a \(bytes.count)-byte file")
            }
            Self.check(m, idle: idle)
        }
    }

    /// A binary PLY file is read in slices, never held whole, so its estimate counts only the
    /// slices (`SceneHeader.fileSliceBytes`), and its peak still stays within the estimate; an
    /// ASCII PLY is read whole, so its input counts in full.
    @Test func binaryPLYCountsOnlyItsSlices() throws {
        let dir = try Hardening.folder("memory-ply-slices")
        let idle = try Self.idle(in: dir)
        let rest = (0..<45).map { "f_rest_\($0)" }
        let names = ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2"] + rest + ["opacity", "scale_0", "scale_1", "scale_2",
                                                                             "rot_0", "rot_1", "rot_2", "rot_3"]
        let count = 100_000
        var random = SplitMix64(seed: 3)
        var values: [Float] = []
        values.reserveCapacity(count * names.count)
        for _ in 0..<count {
            values += (0..<3).map { _ in Float.random(in: -1...1, using: &random) } + [0.2, 0.1, -0.1]
                + [Float](repeating: 0.01, count: 45) + [1, -4, -4, -4, 1, 0, 0, 0]
        }
        let header = "ply\nformat binary_little_endian 1.0\nelement vertex \(count)\n"
            + names.map { "property float \($0)\n" }.joined() + "end_header\n"
        let path = dir.appendingPathComponent("sliced.ply")
        try Data(Array(header.utf8) + values.withUnsafeBytes { Array($0) }).write(to: path)
        let fileBytes = header.utf8.count + 4 * values.count

        let binary = try Self.measure(path.path, in: dir)
        #expect(binary.status == "ok")
        let slices = try #require(binary.terms["input_bytes"])
        #expect(slices > 0 && slices <= 16 << 20 && slices < fileBytes / 2, "input_bytes \(slices) of a \(fileBytes)-byte file")
        Self.check(binary, idle: idle)

        let plain = ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
                     "rot_0", "rot_1", "rot_2", "rot_3"]
        let text = "ply\nformat ascii 1.0\nelement vertex 50\n" + plain.map { "property float \($0)\n" }.joined() + "end_header\n"
            + (0..<50).map { i in "\(Double(i) * 0.02) 0.1 -0.2 0.2 0.1 -0.1 1 -4 -4 -4 1 0 0 0\n" }.joined()
        let asciiPath = dir.appendingPathComponent("whole.ply")
        try Data(text.utf8).write(to: asciiPath)
        let whole = try Self.measure(asciiPath.path, in: dir)
        #expect(whole.status == "ok")
        #expect(whole.terms["input_bytes"] == text.utf8.count)
    }
}
