import Foundation

/// Finds `../shared` beside the package checkout (CI places it there; `SPLATRENDER_SHARED`
/// names another folder, as for the fuzz runner) and loads fixtures.
public enum Fixtures {
    /// The package root: three levels up from this file (Tests/TestSupport/Fixtures.swift).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$SPLATRENDER_SHARED` when set, else `../shared` next to the package root.
    public static let shared: URL = ProcessInfo.processInfo.environment["SPLATRENDER_SHARED"].map { URL(fileURLWithPath: $0) }
        ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

    public static let vectors: URL = shared.appendingPathComponent("spec/vectors")
    public static let corpus: URL = shared.appendingPathComponent("corpus")
    public static let goldenExample: URL = shared.appendingPathComponent("spec/golden-example")
    public static let sampleScenes: URL = packageRoot.appendingPathComponent("SampleScenes")

    /// Path of a file under `../shared/spec/vectors`.
    public static func vector(_ name: String) -> String { vectors.appendingPathComponent(name).path }
    /// Path of a file under `../shared/corpus`.
    public static func corpusFile(_ name: String) -> String { corpus.appendingPathComponent(name).path }

    /// The entries of `vectors/expected.json`, keyed by file name.
    public static func expectedVectors() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: vectors.appendingPathComponent("expected.json"))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var out: [String: [String: Any]] = [:]
        for entry in root["files"] as! [[String: Any]] { out[entry["file"] as! String] = entry }
        return out
    }

    /// The corpus `MANIFEST.json` as parsed JSON.
    public static func manifest() throws -> [String: Any] {
        let data = try Data(contentsOf: corpus.appendingPathComponent("MANIFEST.json"))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    /// A fresh temporary directory for a test.
    public static func temporaryDirectory(_ tag: String = "test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("splatrender-\(tag)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
