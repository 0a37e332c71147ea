import Foundation
import Testing
import SplatService
import SplatCore
import TestSupport
@testable import SplatRenderCLI

/// `worker`'s options: the table's rows and defaults, and the environment mechanism.
@Suite struct WorkerOptionsTests {
    @Test func defaultsComeFromTheLibrary() throws {
        let p = try CommandLineParser.parse(["worker", "--redis", "redis://127.0.0.1:6379"])
        #expect(p.command == .worker)
        #expect(p.text(.stream) == WorkerDefaults.stream && p.text(.group) == WorkerDefaults.group)
        #expect(p.text(.results) == "splatrender:results" && p.text(.dead) == "splatrender:dead")
        #expect(p.number(.lease) == 60 && p.integer(.maxAttempts) == 3)
        #expect(p.memoryBudget == 2 * 805_306_368, "the worker's budget is serve's, not the command line's")
        let c = try WorkerCommand.configuration(p, redis: "redis://127.0.0.1:6379")
        #expect(c.lease == .seconds(60) && c.maxAttempts == 3 && c.concurrency == Parallel.processorCount)
        #expect(c.grace == .seconds(WorkerDefaults.graceSeconds) && c.grace == .seconds(30))
        #expect(c.consumer.hasSuffix("-\(getpid())"))
    }

    /// `--grace` is the worker's as it is serve's, each with its own default; the worker's was a
    /// fixed 30 s.
    @Test func graceIsAnOptionWithTheWorkersDefault() throws {
        let given = try CommandLineParser.parse(["worker", "--redis", "redis://127.0.0.1:6379", "--grace", "2.5"])
        #expect(try WorkerCommand.configuration(given, redis: "redis://127.0.0.1:6379").grace == .milliseconds(2500))
        let fromEnvironment = try CommandLineParser.parse(["worker", "--redis", "redis://127.0.0.1:6379"],
                                                          environment: ["SPLATRENDER_GRACE": "0"])
        #expect(try WorkerCommand.configuration(fromEnvironment, redis: "redis://127.0.0.1:6379").grace == .zero)
        #expect(try CommandLineParser.parse(["serve"]).number(.grace) == ServeDefaults.graceSeconds)
        #expect(throws: UsageError.self) {
            try CommandLineParser.parse(["worker", "--redis", "redis://127.0.0.1:6379", "--grace", "-1"])
        }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["render", "a.ply", "--out", "a.png", "--grace", "1"]) }
    }

    @Test func theEnvironmentFillsWhatTheCommandLineLeftOut() throws {
        let environment = ["SPLATRENDER_REDIS": "redis://from-env:6379", "SPLATRENDER_LEASE": "2.5",
                           "SPLATRENDER_MAX_ATTEMPTS": "5", "SPLATRENDER_STREAM": "{t}:jobs", "SPLATRENDER_HELP": "1",
                           "SPLATRENDER_RESOLUTION": "1x1"]
        let p = try CommandLineParser.parse(["worker", "--redis", "redis://from-flag:6379", "--max-attempts", "2"],
                                            environment: environment)
        #expect(p.text(.redis) == "redis://from-flag:6379", "a flag wins")
        #expect(p.integer(.maxAttempts) == 2)
        #expect(p.number(.lease) == 2.5 && p.text(.stream) == "{t}:jobs")
        #expect(!p.wantsHelp, "help never comes from the environment")
        #expect(p.isGiven(.lease) && !p.isGiven(.group))
        // Commands that do not read the environment ignore it.
        let render = try CommandLineParser.parse(["a.ply", "--out", "a.png"], environment: environment)
        #expect(render.resolution(.resolution)! == (512, 512))
        #expect(OptionTable.environmentVariable(for: .metricsListen) == "SPLATRENDER_METRICS_LISTEN")
    }

    @Test func aBadEnvironmentValueNamesItsVariable() {
        func message(_ environment: [String: String]) -> String? {
            do {
                _ = try CommandLineParser.parse(["worker"], environment: environment)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(["SPLATRENDER_LEASE": "soon"])
                == "SPLATRENDER_LEASE: invalid value 'soon' for --lease: expected a number from 0.03 to 86400")
        #expect(message(["SPLATRENDER_MAX_ATTEMPTS": "0"])?.hasPrefix("SPLATRENDER_MAX_ATTEMPTS: invalid value '0'") == true)
        #expect(message(["SPLATRENDER_LEASE": "1"]) == nil)
    }

    @Test func usageErrorsExit64() {
        let missing = runCLI(["worker"])
        #expect(missing.status == 64)
        #expect(missing.err.text == "error: worker needs --redis URL (or SPLATRENDER_REDIS) (see --help)\n")
        let badURL = runCLI(["worker", "--redis", "http://x"])
        #expect(badURL.status == 64 && badURL.err.text.contains("--redis"))
        let badRoot = runCLI(["worker", "--redis", "redis://127.0.0.1:1", "--input-root", "relative/dir"])
        #expect(badRoot.status == 64 && badRoot.err.text.contains("--input-root must be an absolute path"))
        let badListen = runCLI(["worker", "--redis", "redis://127.0.0.1:1", "--metrics-listen", "nowhere"])
        #expect(badListen.status == 64 && badListen.err.text.contains("--metrics-listen"))
        let help = runCLI(["worker", "--help"])
        #expect(help.status == 0 && help.out.text.contains("--max-attempts N") && help.out.text.contains("SPLATRENDER_REDIS"))
    }
}
