import Foundation
import Testing
import TestSupport

/// The module rules of `Documentation/CONTRIBUTING.md` ("Module map"), checked from the `import`
/// lines of every source file, so an arrow pointing the wrong way fails the suite instead of
/// waiting for a reviewer. Also the size rule: no source file over 320 lines.
@Suite("Architecture")
struct ArchitectureTests {
    /// Our modules and the modules of ours (and C shims) each may import. System modules
    /// (Foundation, Glibc, Dispatch, …) are allowed everywhere.
    static let allowed: [String: Set<String>] = [
        "SplatCore": [],
        "SplatFormats": ["SplatCore", "CZstd", "CDeflate", "CZlib", "CWebP"],
        "SplatRender": ["SplatCore", "CPrefetch"],
        "SplatImage": ["SplatCore", "CPNG", "CWebP", "CDeflate", "CZlib", "CTurboJPEG"],
        "SplatService": ["SplatCore", "SplatFormats", "SplatRender", "SplatImage", "CCurl"],
        "SplatServe": ["SplatCore", "SplatFormats", "SplatRender", "SplatImage", "SplatService", "CMicroHTTPD"],
        "SplatFleet": ["SplatCore", "SplatFormats", "SplatRender", "SplatImage", "SplatService", "CHiredis"],
        "SplatRenderCLI": ["SplatCore", "SplatFormats", "SplatRender", "SplatImage", "SplatService", "SplatServe", "SplatFleet"],
        "splatrender": ["SplatRenderCLI"],
    ]
    static let system: Set<String> = ["Foundation", "FoundationNetworking", "Glibc", "Darwin", "Dispatch", "Synchronization"]
    static let ours: Set<String> = Set(allowed.keys).union(allowed.values.flatMap { $0 })

    static var sources: URL { Fixtures.packageRoot.appendingPathComponent("Sources") }

    /// (module, file, imported module) for every import line under Sources/.
    static func imports() throws -> [(module: String, file: String, imported: String)] {
        var found: [(String, String, String)] = []
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        for module in modules {
            let root = sources.appendingPathComponent(module)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let file as String in walker where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for line in text.split(separator: "\n") {
                    let words = line.split(separator: " ")
                    guard let i = words.firstIndex(of: "import"), i <= 1, i + 1 < words.count else { continue }
                    if i == 1, words[0] != "@testable", !words[0].hasPrefix("@_") { continue }
                    found.append((module, "\(module)/\(file)", String(words[i + 1])))
                }
            }
        }
        return found
    }

    @Test("every module imports only what the module map allows")
    func importsFollowTheMap() throws {
        let all = try Self.imports()
        #expect(all.count > 100, "the scan found the sources")
        for (module, file, imported) in all where !Self.system.contains(imported) {
            guard let allowed = Self.allowed[module] else {
                if !module.hasPrefix("C") { Issue.record("module \(module) is not in the module map") }
                continue
            }
            #expect(allowed.contains(imported), "\(file) imports \(imported), which \(module) may not use")
        }
    }

    @Test("nothing but the executable imports the command line")
    func onlyTheExecutableImportsTheCLI() throws {
        for (module, file, imported) in try Self.imports() where imported == "SplatRenderCLI" {
            #expect(module == "splatrender", "\(file) imports the CLI")
        }
    }

    @Test("no source file is longer than 320 lines")
    func sourceFilesStaySmall() throws {
        guard let walker = FileManager.default.enumerator(atPath: Self.sources.path) else { return }
        var checked = 0
        for case let file as String in walker where file.hasSuffix(".swift") {
            let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
            #expect(lines <= 320, "\(file) has \(lines) lines")
            checked += 1
        }
        #expect(checked > 100)
    }
}
