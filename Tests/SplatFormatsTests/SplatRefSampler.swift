import Foundation
import SplatCore
import TestSupport

/// Runs the independent Python decoder (`vectors/splat_ref.py`) on a file and returns a sample
/// of its splats (the first and last 20 and about 40 spread between; every splat for small
/// files) with their indices, so a Swift decode can be compared value by value. Tests that need
/// it are skipped when python3 is not installed.
enum SplatRefSampler {
    /// The python3 executable on PATH, if any.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/python3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }()

    static var available: Bool { python != nil }

    private static let script = """
        import sys, json
        sys.path.insert(0, sys.argv[1])
        import splat_ref
        r = splat_ref.detect_and_decode(sys.argv[2], limit=None)
        n = len(r["splats"])
        if n <= 400:
            idx = list(range(n))
        else:
            step = max(1, n // 40)
            idx = sorted(set(list(range(20)) + list(range(0, n, step)) + list(range(n - 20, n))))
        out = {k: v for k, v in r.items() if k != "splats"}
        out["indices"] = idx
        out["splats"] = [r["splats"][i] for i in idx]
        print(json.dumps(splat_ref._clean(out)))
        """

    struct Sample {
        /// The decoder's top-level fields (num_points, sh_degree, model, …) and `splats`.
        var entry: [String: Any]
        var indices: [Int]
    }

    enum Failure: Error { case noPython, failed(String) }

    /// Decodes `path` with splat_ref.py and returns the sample.
    static func sample(_ path: String) throws -> Sample {
        guard let python else { throw Failure.noPython }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script, Fixtures.vectors.path, path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.failed(String(decoding: errData, as: UTF8.self))
        }
        guard let entry = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let indices = entry["indices"] as? [Int] else {
            throw Failure.failed("unexpected splat_ref output")
        }
        return Sample(entry: entry, indices: indices)
    }

    /// Mismatches between `scene` and the sample, reported with the sample's splat indices.
    static func mismatches(_ scene: SplatScene, _ sample: Sample, tolerance: Double = 1e-5) -> [String] {
        var problems: [String] = []
        if let n = sample.entry["num_points"] as? Int, n != scene.count { problems.append("count \(scene.count), expected \(n)") }
        guard sample.indices.allSatisfy({ $0 < scene.count }) else { return problems + ["sample index past the scene"] }
        let picked = subset(scene, sample.indices)
        var entry = sample.entry
        entry["num_points"] = picked.count
        for line in ExpectedSplats.mismatches(picked, expected: entry, tolerance: tolerance) {
            // "splat j …" → "splat <file index> …"
            if line.hasPrefix("splat "), let j = Int(line.dropFirst(6).prefix(while: { $0.isNumber })) {
                problems.append("splat \(sample.indices[j])" + line.dropFirst(6).drop(while: { $0.isNumber }))
            } else {
                problems.append(line)
            }
        }
        return problems
    }

    /// A new scene holding splats `indices` of `scene`, in that order.
    static func subset(_ scene: SplatScene, _ indices: [Int]) -> SplatScene {
        let out = SplatScene(count: indices.count, shDegree: scene.shDegree, zeroed: true)
        out.model = scene.model
        for c in SplatScene.Column.allCases {
            let src = scene.columnBase(c), dst = out.columnBase(c)
            for (j, i) in indices.enumerated() { dst[j] = src[i] }
        }
        let per = scene.shFloatsPerSplat
        for (j, i) in indices.enumerated() {
            for f in 0..<per { out.sh[j * per + f] = scene.sh[i * per + f] }
        }
        return out
    }
}
