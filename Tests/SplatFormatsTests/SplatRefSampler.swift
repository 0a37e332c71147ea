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
        print(json.dumps(splat_ref._clean(r)))
        """

    struct Sample {
        /// The decoder's top-level fields (num_points, sh_degree, model, …) and `splats`.
        var entry: [String: Any]
        /// The index in the original file of each listed splat.
        var indices: [Int]
    }

    enum Failure: Error { case noPython, failed(String) }

    /// Decodes `path` with splat_ref.py. Files of more than 400 splats are cut down first, by
    /// slicing bytes (no decoding), to a file of the first and last splats and a spread
    /// between them, so the Python decoder stays fast; `num_points` is then the original count.
    static func sample(_ path: String) throws -> Sample {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var target = path
        var indices: [Int]? = nil
        var count: Int? = nil
        var cleanup: URL? = nil
        defer { if let cleanup { try? FileManager.default.removeItem(at: cleanup) } }
        if let cut = try subsetFile(bytes, name: path) {
            let dir = try Fixtures.temporaryDirectory("splatref")
            cleanup = dir
            target = dir.appendingPathComponent((path as NSString).lastPathComponent).path
            try Data(cut.bytes).write(to: URL(fileURLWithPath: target))
            indices = cut.indices
            count = cut.originalCount
        }
        var entry = try run(target)
        guard let splats = entry["splats"] as? [Any] else { throw Failure.failed("no splats in splat_ref output") }
        if let count { entry["num_points"] = count }
        return Sample(entry: entry, indices: indices ?? Array(0..<splats.count))
    }

    private static func run(_ path: String) throws -> [String: Any] { try run(path, script: script) }

    /// Runs a Python `script` given the vectors folder and `path`, which prints one JSON object.
    static func run(_ path: String, script: String) throws -> [String: Any] {
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
        guard let entry = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Failure.failed("unexpected splat_ref output")
        }
        return entry
    }

    /// The splat indices a sample of `n` keeps: the first and last 20 and about 40 between.
    static func sampleIndices(_ n: Int) -> [Int] {
        let step = max(1, n / 40)
        return Array(Set(Array(0..<min(n, 20)) + Array(stride(from: 0, to: n, by: step)) + Array(max(0, n - 20)..<n))).sorted()
    }

    /// A smaller file holding a sample of the splats of a `.splat`, single-element binary PLY or
    /// compressed PLY (whole 256-splat chunks: the first, one in the middle and the last), or
    /// nil when the file is small enough to use as it is.
    static func subsetFile(_ bytes: [UInt8], name: String) throws -> (bytes: [UInt8], indices: [Int], originalCount: Int)? {
        if name.lowercased().hasSuffix(".splat") {
            let n = bytes.count / 32
            guard n > 400 else { return nil }
            let picked = sampleIndices(n)
            return (picked.flatMap { bytes[($0 * 32)..<($0 * 32 + 32)] }, picked, n)
        }
        guard let end = findEndHeader(bytes) else { throw Failure.failed("no end_header") }
        let headerText = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = headerText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // (line index, name, count, row bytes) per element; scalar properties only.
        var elements: [(line: Int, name: String, count: Int, row: Int)] = []
        let sizes = ["char": 1, "uchar": 1, "int8": 1, "uint8": 1, "short": 2, "ushort": 2, "int16": 2, "uint16": 2,
                     "int": 4, "uint": 4, "int32": 4, "uint32": 4, "float": 4, "float32": 4, "double": 8, "float64": 8]
        for (i, line) in lines.enumerated() {
            let words = line.split(separator: " ")
            if words.first == "element", words.count == 3, let c = Int(words[2]) {
                elements.append((i, String(words[1]), c, 0))
            } else if words.first == "property", words.count == 3, let size = sizes[String(words[1])], !elements.isEmpty {
                elements[elements.count - 1].row += size
            } else if words.first == "property" {
                throw Failure.failed("cannot subset a PLY with property line \(line)")
            }
        }
        var offset = end
        var bodies: [String: ArraySlice<UInt8>] = [:]
        for e in elements {
            bodies[e.name] = bytes[offset..<(offset + e.count * e.row)]
            offset += e.count * e.row
        }
        let isCompressed = headerText.contains("packed_position")
        guard let vertex = elements.first(where: { $0.name == "vertex" }), vertex.count > 400 else { return nil }
        let n = vertex.count
        var picked: [Int]
        var out: [UInt8] = []
        if isCompressed {
            let chunks = (n + 255) / 256
            let keptChunks = Array(Set([0, chunks / 2, chunks - 1])).sorted()
            picked = keptChunks.flatMap { c in Array((c * 256)..<min(n, c * 256 + 256)) }
            for e in elements {
                let rows = e.name == "chunk" ? keptChunks : picked
                lines[e.line] = "element \(e.name) \(rows.count)"
                let body = bodies[e.name]!
                for r in rows { out += body[(body.startIndex + r * e.row)..<(body.startIndex + (r + 1) * e.row)] }
            }
        } else {
            guard elements.count == 1 else { throw Failure.failed("cannot subset a PLY with several elements") }
            picked = sampleIndices(n)
            lines[vertex.line] = "element vertex \(picked.count)"
            let body = bodies["vertex"]!
            for r in picked { out += body[(body.startIndex + r * vertex.row)..<(body.startIndex + (r + 1) * vertex.row)] }
        }
        return (Array(lines.joined(separator: "\n").utf8) + out, picked, n)
    }

    /// Offset just after the `end_header` line.
    private static func findEndHeader(_ bytes: [UInt8]) -> Int? {
        let marker = Array("end_header\n".utf8)
        guard bytes.count >= marker.count else { return nil }
        for i in 0...(min(bytes.count, 1 << 20) - marker.count) where bytes[i] == marker[0] {
            if Array(bytes[i..<(i + marker.count)]) == marker { return i + marker.count }
        }
        return nil
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
