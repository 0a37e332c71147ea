import Foundation

/// Where the benchmark inputs and tools are: the shared corpus (`--shared`, else
/// `$SPLATRENDER_SHARED`, else `../shared`
/// from the working directory, else `../shared` beside the package root this file was built
/// from), the stress scene folder, and the release `splatrender` binary beside this executable.
struct BenchmarkPaths {
    let packageRoot: URL
    let shared: URL
    var corpus: URL { shared.appendingPathComponent("corpus") }

    /// The package root recorded at build time (this file is `<root>/Benchmarks/…`).
    static let builtPackageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    init(shared explicit: String?) throws {
        packageRoot = Self.builtPackageRoot
        let candidates: [URL]
        if let explicit = explicit ?? ProcessInfo.processInfo.environment["SPLATRENDER_SHARED"] {
            candidates = [URL(fileURLWithPath: explicit)]
        } else {
            let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            candidates = [cwd.appendingPathComponent("../shared").standardizedFileURL,
                          packageRoot.appendingPathComponent("../shared").standardizedFileURL]
        }
        guard let found = candidates.first(where: {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("corpus/MANIFEST.json").path)
        }) else {
            throw BenchmarkError("no shared folder with corpus/MANIFEST.json at " + candidates.map(\.path).joined(separator: " or ")
                                 + " (use --shared PATH)")
        }
        shared = found
    }

    /// A corpus file that must exist.
    func corpusFile(_ relative: String) throws -> String {
        let path = corpus.appendingPathComponent(relative).path
        guard FileManager.default.fileExists(atPath: path) else { throw BenchmarkError("missing corpus file \(path)") }
        return path
    }

    /// The `splatrender` built into the same folder as this executable, if there is one.
    static var siblingSplatrender: String? {
        let path = URL(fileURLWithPath: ChildProcess.currentExecutable).deletingLastPathComponent()
            .appendingPathComponent("splatrender").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
