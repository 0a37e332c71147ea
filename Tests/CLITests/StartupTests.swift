import Foundation
import Testing
import TestSupport

/// libcurl and its dependency tree (TLS, Kerberos, LDAP, SSH, HTTP/2: 27 of 58 libraries) cost
/// 6 ms of every start, so the CLI loads it only when a transfer needs it (`CCurl`). The
/// dynamic loader's own log (`LD_DEBUG=libs`) shows what a run loaded.
@Suite struct StartupTests {
    @Test func aLocalRenderNeverLoadsLibcurl() throws {
        let scratch = try Hardening.folder("startup")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        let log = scratch.appendingPathComponent("ld.log").path
        let out = scratch.appendingPathComponent("t.png").path
        let child = try ChildProcess(try Hardening.executable(), [Hardening.tiny, "--out", out, "--resolution", "32x32"],
                                     environment: environment, stdin: .null, stdout: .null, stderr: .file(log))
        if !child.waitForExit(timeout: .seconds(60)) { child.kill9() }
        #expect(child.termination == .exited(0))
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("libswiftCore"), "the loader's log is empty: \(text.prefix(200))")
        #expect(!text.contains("libcurl"))
        #expect(FileManager.default.fileExists(atPath: out))
    }
}
