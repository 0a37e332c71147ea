import Testing
import SplatCore
import SplatServe
import SplatService
@testable import SplatRenderCLI

@Suite struct ServeOptionsTests {
    static func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeConfiguration {
        try ServeConfiguration(try CommandLineParser.parse(["serve"] + arguments, environment: environment))
    }

    @Test func defaultsAreTheLibrarysConstants() throws {
        let c = try Self.configuration([])
        #expect(c.http.listen == ListenAddress(host: "127.0.0.1", port: 8080))
        #expect(ListenAddress(parsing: ServeDefaults.listen) == ListenAddress.defaultValue)
        #expect(c.workers == Parallel.processorCount)
        #expect(c.queue == 2 * Parallel.processorCount)
        #expect(c.scene.memoryBudgetBytes == 2 * 805_306_368)
        // The largest input the ceiling admits in any format: 4 × 768 MiB (ASCII PLY).
        #expect(c.scene.maxBodyBytes == 3_221_225_472)
        #expect(c.http.maxBodyBytes == c.scene.maxBodyBytes)
        #expect(c.http.requestTimeout == .seconds(30))
        #expect(c.grace == .seconds(20))
        #expect(c.scene.limits == DecodeLimits())
        #expect(!c.quiet)
    }

    @Test func theBodyCapFollowsTheDecodeLimits() throws {
        #expect(try Self.configuration(["--max-decoded-bytes", "2G"]).scene.maxBodyBytes == 8 << 30)
        #expect(try Self.configuration(["--max-input-bytes", "100M"]).scene.maxBodyBytes == 100 << 20)
        #expect(try Self.configuration(["--max-input-bytes", "100M", "--max-body-bytes", "5M"]).scene.maxBodyBytes == 5 << 20)
    }

    @Test func everyFlagReadsItsVariableAndTheFlagWins() throws {
        let environment = ["SPLATRENDER_LISTEN": "0.0.0.0:9000", "SPLATRENDER_WORKERS": "3", "SPLATRENDER_GRACE": "2.5",
                           "SPLATRENDER_REQUEST_TIMEOUT": "4", "SPLATRENDER_QUIET": "true", "SPLATRENDER_MAX_SH_DEGREE": "1",
                           "SPLATRENDER_MEMORY_BUDGET": "1G"]
        let c = try Self.configuration([], environment: environment)
        #expect(c.http.listen == ListenAddress(host: "0.0.0.0", port: 9000))
        #expect(c.workers == 3 && c.queue == 6)
        #expect(c.grace == .milliseconds(2500))
        #expect(c.http.requestTimeout == .seconds(4))
        #expect(c.quiet)
        #expect(c.scene.limits.maxShDegree == 1)
        #expect(c.scene.memoryBudgetBytes == 1 << 30)
        let flagged = try Self.configuration(["--workers", "2", "--memory-budget", "512M"], environment: environment)
        #expect(flagged.workers == 2 && flagged.queue == 4)
        #expect(flagged.scene.memoryBudgetBytes == 512 << 20)
        // Off in the environment is off.
        #expect(try !Self.configuration([], environment: ["SPLATRENDER_QUIET": "0"]).quiet)
    }

    @Test func badSettingsAreUsageErrorsNamingTheirSource() throws {
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["serve"], environment: ["SPLATRENDER_WORKERS": "many"]) }
        let grace = #expect(throws: UsageError.self) { try CommandLineParser.parse(["serve"], environment: ["SPLATRENDER_GRACE": "soon"]) }
        #expect(grace?.message.contains("SPLATRENDER_GRACE") == true)
        #expect(throws: SplatError.self) { try Self.configuration(["--listen", "localhost"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["serve", "scene.spz"]) }
        // Only the services read the environment.
        let render = try CommandLineParser.parse(["render", "a.ply", "--out", "a.png"], environment: ["SPLATRENDER_RESOLUTION": "9x9"])
        #expect(render.resolution(.resolution)! == (512, 512))
    }

    @Test func helpListsTheVariables() {
        let help = HelpText.forCommand(.serve)
        for name in ["SPLATRENDER_LISTEN", "SPLATRENDER_WORKERS", "SPLATRENDER_QUEUE", "SPLATRENDER_MEMORY_BUDGET",
                     "SPLATRENDER_MAX_BODY_BYTES", "SPLATRENDER_REQUEST_TIMEOUT", "SPLATRENDER_GRACE", "SPLATRENDER_MAX_DECODED_BYTES",
                     "SPLATRENDER_QUIET"] {
            #expect(help.contains(name), "serve --help lacks \(name)")
        }
        #expect(!HelpText.forCommand(.render).contains("SPLATRENDER_"))
    }
}
