import Foundation
import SplatCore
import SplatService
import TestSupport
import Testing

extension FleetTests {
    @Suite struct JobLocationTests {
        func refusal(_ body: () throws(SplatError) -> JobLocation) -> SplatErrorKind? {
            do {
                _ = try body()
                return nil
            } catch {
                return error.kind
            }
        }

        @Test func filesInsideTheRootsAreResolved() throws {
            let base = try Fixtures.temporaryDirectory("roots")
            defer { try? FileManager.default.removeItem(at: base) }
            let inputs = base.appendingPathComponent("in"), outputs = base.appendingPathComponent("out")
            try FileManager.default.createDirectory(at: inputs.appendingPathComponent("a b"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outputs, withIntermediateDirectories: true)
            try Data([1]).write(to: inputs.appendingPathComponent("a b/scene.spz"))
            let roots = try JobLocationRoots(inputRoot: inputs.path, outputRoot: outputs.path)
            let realInputs = try #require(roots.inputRoot)
            #expect(try roots.input("file://\(inputs.path)/a%20b/scene.spz") == .file(path: realInputs + "/a b/scene.spz"))
            #expect(try roots.input("file://localhost\(inputs.path)/./a%20b//scene.spz") == .file(path: realInputs + "/a b/scene.spz"))
            #expect(try roots.input("https://cdn.example/scenes/1.spz?sig=x") == .remote(url: "https://cdn.example/scenes/1.spz?sig=x"))
            #expect(try roots.output("HTTP://uploads.example/put") == .remote(url: "HTTP://uploads.example/put"))
            // Outputs may name folders that do not exist yet.
            let realOutputs = try #require(roots.outputRoot)
            #expect(try roots.output("file://\(outputs.path)/x/y/thumb.png") == .file(path: realOutputs + "/x/y/thumb.png"))
            // Without roots any absolute path goes, still without '..'.
            #expect(try JobLocationRoots().input("file:///etc/hostname") == .file(path: "/etc/hostname"))
            #expect(refusal { () throws(SplatError) in try JobLocationRoots().input("file:///etc/../etc/hostname") } == .badJob)
        }

        @Test func escapesAndOtherSchemesAreBadJobs() throws {
            let base = try Fixtures.temporaryDirectory("escape")
            defer { try? FileManager.default.removeItem(at: base) }
            let root = base.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data([1]).write(to: base.appendingPathComponent("secret.ply"))
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link").path, withDestinationPath: base.path)
            try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("leak.ply").path,
                                                       withDestinationPath: base.appendingPathComponent("secret.ply").path)
            let roots = try JobLocationRoots(inputRoot: root.path, outputRoot: root.path)
            let r = root.path
            for text in ["file://\(base.path)/secret.ply", "file://\(r)/../secret.ply", "file://\(r)/%2e%2e/secret.ply",
                         "file://\(r)/%2E%2E%2fsecret.ply", "file://\(r)/link/secret.ply", "file://\(r)/leak.ply",
                         "file://\(r)-sibling/x.ply", "file://otherhost\(r)/x.ply", "file:\(r)/x.ply", "file://\(r)/x.ply?y",
                         "file://\(r)/%zz", "file://\(r)/a%00b", "\(r)/x.ply", "relative/x.ply", "",
                         "gopher://127.0.0.1/x", "ftp://127.0.0.1/x", "dict://h/", "javascript:alert(1)", "https://", "http:///x",
                         "https://h/a\nb"] {
                #expect(refusal { () throws(SplatError) in try roots.input(text) } == .badJob, "input \(text)")
                #expect(refusal { () throws(SplatError) in try roots.output(text) } == .badJob, "output \(text)")
            }
            #expect(refusal { () throws(SplatError) in try roots.output("file://\(r)/") } == .badJob, "an output needs a name")
            #expect(refusal { () throws(SplatError) in try roots.output("file://\(r)/link/new/out.png") } == .badJob)
            #expect(!FileManager.default.fileExists(atPath: base.appendingPathComponent("new").path), "nothing created outside")
            do {
                _ = try roots.input("gopher://127.0.0.1/x")
            } catch {
                #expect(error.message.contains("scheme gopher is not allowed"))
            }
        }

        @Test func rootsMustBeAbsoluteExistingFolders() throws {
            for bad in ["relative/root", "/no/such/folder/anywhere", "/etc/hostname"] {
                #expect(throws: SplatError.self, "\(bad)") { try JobLocationRoots(inputRoot: bad) }
            }
        }

        @Test func storeWritesFilesAtomicallyAndUploadsWithTheirType() throws {
            let base = try Fixtures.temporaryDirectory("store")
            defer { try? FileManager.default.removeItem(at: base) }
            let roots = try JobLocationRoots(outputRoot: base.path)
            let transfer = URLTransfer(configuration: .local)
            let target = try roots.output("file://\(base.path)/renders/scene-1/thumb.png")
            try roots.store([1, 2, 3], at: target, contentType: "image/png", transfer: transfer)
            #expect(try Data(contentsOf: base.appendingPathComponent("renders/scene-1/thumb.png")) == Data([1, 2, 3]))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent("renders/scene-1").path)
            #expect(leftovers == ["thumb.png"], "no temporary file left behind")

            let server = try HTTPTestServer()
            defer { server.stop() }
            try roots.store([9, 9], at: try roots.output(server.url("/put/spin.webp?sig=1")), contentType: "image/webp", transfer: transfer)
            let puts = try server.puts()
            #expect(puts.map(\.contentType) == ["image/webp"])
            #expect(puts.first?.body == [9, 9])
        }
    }
}
