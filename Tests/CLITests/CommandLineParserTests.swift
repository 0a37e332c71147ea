import Testing
import SplatService
import SplatCore
import SplatFormats
import TestSupport
@testable import SplatRenderCLI

@Suite struct CommandLineParserTests {
    func parse(_ args: [String]) throws -> ParsedCommand { try CommandLineParser.parse(args) }

    func usageMessage(_ args: [String]) -> String? {
        do {
            _ = try CommandLineParser.parse(args)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func spaceAndEqualsFormsGiveTheSameValues() throws {
        let spaced = try parse(["render", "a.ply", "--out", "x.png", "--resolution", "640x480", "--camera-fov", "35"])
        let joined = try parse(["render", "a.ply", "--out=x.png", "--resolution=640x480", "--camera-fov=35"])
        #expect(spaced == joined)
        #expect(spaced.text(.out) == "x.png")
        #expect(spaced.resolution(.resolution)! == (640, 480))
        #expect(spaced.number(.cameraFov) == 35)
    }

    @Test func aValueMayStartWithADash() throws {
        let p = try parse(["scene.spz", "--camera-pos", "-1.5,0.2,3", "--camera-up", "-0,-1,0", "--out", "-"])
        #expect(p.vector(.cameraPos) == SIMD3(-1.5, 0.2, 3))
        #expect(p.vector(.cameraUp) == SIMD3(0, -1, 0))
        #expect(p.text(.out) == "-")
        #expect(p.positionals == ["scene.spz"])
    }

    @Test func renderIsTheDefaultCommand() throws {
        let p = try parse(["scene.spz", "-o", "frame.png"])
        #expect(p.command == .render)
        #expect(p.positionals == ["scene.spz"])
        #expect(p.text(.out) == "frame.png")
        // Defaults come from the table and are parsed like given values.
        #expect(p.resolution(.resolution)! == (512, 512))
        #expect(p.number(.cameraFov) == 50)
        #expect(p.choice(.antialiased) == "auto")
        #expect(p.integer(.maxDecodedBytes) == 805_306_368)
        #expect(!p.isGiven(.resolution))
        let named = try parse(["render", "scene.spz", "-o", "frame.png"])
        #expect(named == p)
    }

    @Test func doubleDashEndsOptionsAndDashIsPositional() throws {
        let p = try parse(["info", "--json", "--", "--weird-name.ply"])
        #expect(p.command == .info)
        #expect(p.flag(.json))
        #expect(p.positionals == ["--weird-name.ply"])
        let stdin = try parse(["info", "-", "--format", "splat"])
        #expect(stdin.positionals == ["-"])
        #expect(stdin.format(.format) == .splat)
        let convert = try parse(["convert", "in.ply", "out.spz", "--to-frame", "opengl", "--spz-version", "3"])
        #expect(convert.positionals == ["in.ply", "out.spz"])
        #expect(convert.frame(.toFrame) == .rub)
        #expect(convert.integer(.spzVersion) == 3)
    }

    @Test func lastRepeatedValueWins() throws {
        let p = try parse(["a.ply", "--out", "1.png", "--out", "2.png"])
        #expect(p.text(.out) == "2.png")
    }

    @Test func frameNamesAndFormatsAreCaseInsensitive() throws {
        let p = try parse(["info", "a.ply", "--source-frame", "rdf", "--format", "Compressed-PLY"])
        #expect(p.frame(.sourceFrame) == .rdf)
        #expect(p.format(.format) == .compressedPLY)
    }

    @Test func byteCountsAcceptBinarySuffixes() throws {
        #expect(try parse(["info", "a", "--max-decoded-bytes", "1M"]).integer(.maxDecodedBytes) == 1 << 20)
        #expect(try parse(["info", "a", "--max-decoded-bytes=768MiB"]).integer(.maxDecodedBytes) == 805_306_368)
        #expect(try parse(["info", "a", "--max-decoded-bytes", "4096"]).integer(.maxDecodedBytes) == 4096)
        #expect(usageMessage(["info", "a", "--max-decoded-bytes", "-5"]) != nil)
        #expect(usageMessage(["info", "a", "--max-decoded-bytes", "99999999999999999999"]) != nil)
        #expect(usageMessage(["info", "a", "--max-decoded-bytes", "9000000000T"]) != nil)
    }

    @Test func usageErrors() {
        let cases: [([String], String)] = [
            (["a.ply", "--out", "x.png", "--bogus"], "unknown option --bogus"),
            (["a.ply", "--out"], "option --out needs a value"),
            (["a.ply", "--out", "x.png", "--camera-fov", "abc"], "invalid value 'abc' for --camera-fov"),
            (["a.ply", "--out", "x.png", "--camera-fov", "nan"], "invalid value 'nan' for --camera-fov"),
            (["a.ply", "--out", "x.png", "--camera-pos", "1,2"], "invalid value '1,2' for --camera-pos"),
            (["a.ply", "--out", "x.png", "--resolution", "0x10"], "invalid value '0x10' for --resolution"),
            (["a.ply", "--out", "x.png", "--background", "1,2,0"], "invalid value '1,2,0' for --background"),
            (["a.ply", "--out", "x.png", "--source-frame", "XYZ"], "invalid value 'XYZ' for --source-frame"),
            (["a.ply", "--out", "x.png", "--antialiased", "maybe"], "invalid value 'maybe' for --antialiased"),
            (["a.ply", "--out", "x.png", "--sh-degree", "5"], "invalid value '5' for --sh-degree"),
            (["info", "a.ply", "--json=yes"], "option --json takes no value"),
            (["info", "a.ply", "--out", "x.png"], "option --out does not apply to info"),
            (["info"], "info needs FILE"),
            (["convert", "a.ply"], "convert needs OUT"),
            (["convert", "a.ply", "b.ply", "c.ply"], "unexpected argument 'c.ply' for convert"),
            (["help", "paint"], "unknown command 'paint'"),
            ([], "no command or scene given"),
            (["a.ply", "-x"], "unknown option -x"),
        ]
        for (args, prefix) in cases {
            let message = usageMessage(args)
            #expect(message?.hasPrefix(prefix) == true, "\(args): \(message ?? "parsed")")
        }
    }

    @Test func misspeltOptionsGetASuggestion() {
        #expect(usageMessage(["a.ply", "--camera-fob", "20"])?.contains("did you mean --camera-fov?") == true)
        #expect(usageMessage(["a.ply", "--resolutoin=9x9"])?.contains("did you mean --resolution?") == true)
    }

    @Test func helpAndVersionSkipPositionalChecks() throws {
        #expect(try parse(["--help"]).command == .help)
        #expect(try parse(["-h"]).command == .help)
        let renderHelp = try parse(["render", "--help"])
        #expect(renderHelp.command == .render && renderHelp.wantsHelp)
        #expect(try parse(["convert", "-h"]).wantsHelp)
        #expect(try parse(["--version"]).wantsVersion)
        #expect(try parse(["help", "convert"]).positionals == ["convert"])
    }

    @Test func everyDefaultInTheTableParses() throws {
        for spec in OptionTable.options {
            guard let text = spec.defaultValue else { continue }
            _ = try OptionValueParser.parse(text, for: spec)
        }
        let names = OptionTable.options.map(\.name)
        #expect(Set(names).count == names.count, "option names are unique")
        let shorts = OptionTable.options.compactMap(\.short)
        #expect(Set(shorts).count == shorts.count, "short aliases are unique")
    }

    @Test func helpListsEveryOptionOfTheCommand() {
        for command in CommandName.allCases where command != .help {
            let text = HelpText.forCommand(command)
            for spec in OptionTable.options(for: command) {
                #expect(text.contains("--\(spec.name)"), "\(command) help lacks --\(spec.name)")
            }
            for spec in OptionTable.options where !spec.commands.contains(command) {
                #expect(!text.contains("--\(spec.name) "), "\(command) help shows --\(spec.name)")
            }
        }
    }
}

@Suite struct ServiceOptionParsingTests {
    @Test func progressTakesAValueOnlyWhenItIsOne() throws {
        let bare = try CommandLineParser.parse(["render", "--progress", "scene.ply", "-o", "a.png"])
        #expect(bare.choice(.progress) == "line" && bare.positionals == ["scene.ply"])
        let json = try CommandLineParser.parse(["render", "scene.ply", "--progress", "json", "-o", "a.png"])
        #expect(json.choice(.progress) == "json" && json.positionals == ["scene.ply"])
        let inline = try CommandLineParser.parse(["render", "scene.ply", "--progress=none", "-o", "a.png"])
        #expect(inline.choice(.progress) == "none")
        #expect(try CommandLineParser.parse(["render", "s.ply", "-o", "a.png"]).choice(.progress) == "auto")
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["render", "s.ply", "--progress=loud"]) }
    }

    @Test func oneOptionNameMayTakeAPathOrBeAFlag() throws {
        let turntable = try CommandLineParser.parse(["turntable", "s.ply", "--sheet", "sheet.png", "--sheet-elevations", "10,-5.5"])
        #expect(turntable.text(.sheet) == "sheet.png")
        #expect(turntable.numbers(.sheetElevations) == [10, -5.5])
        let thumbnails = try CommandLineParser.parse(["thumbnails", "a.ply", "--sheet", "b.ply", "--out-dir", "o"])
        #expect(thumbnails.flag(.sheet) && thumbnails.positionals == ["a.ply", "b.ply"])
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["turntable", "s.ply", "--sheet-elevations", "10,95"]) }
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["turntable", "s.ply", "--turntable", "5"]) }
        let help = HelpText.forCommand(.thumbnails)
        #expect(help.contains("--sheet ") && !help.contains("--sheet FILE.png"))
        #expect(HelpText.forCommand(.turntable).contains("--sheet FILE.png"))
    }
}

@Suite struct CommandRunnerUsageTests {
    @Test func usageErrorsExit64WithTheSeeHelpLine() {
        let out = CapturedOutput(), err = CapturedOutput()
        let status = CommandRunner.run(["scene.ply", "--out", "x.png", "--frobnicate"], stdout: out, stderr: err)
        #expect(status == 64)
        #expect(err.text == "error: unknown option --frobnicate (see --help)\n")
        #expect(out.bytes.isEmpty)
    }

    @Test func versionAndHelpGoToStdout() {
        let out = CapturedOutput(), err = CapturedOutput()
        #expect(CommandRunner.run(["--version"], stdout: out, stderr: err) == 0)
        #expect(out.text == "splatrender \(ProgramInfo.version)\n")
        let help = CapturedOutput()
        #expect(CommandRunner.run(["help", "render"], stdout: help, stderr: err) == 0)
        #expect(help.text.hasPrefix("usage: splatrender [render] SCENE --out FILE.png"))
        #expect(help.text.contains("--camera-fov DEG"))
        #expect(help.text.contains("(default 512x512)"))
        let overview = CapturedOutput()
        #expect(CommandRunner.run(["--help"], stdout: overview, stderr: err) == 0)
        #expect(overview.text.contains("exit status:"))
        #expect(overview.text.contains(" 75  "))
        #expect(err.bytes.isEmpty)
    }

    @Test func missingInputExits66() throws {
        let dir = try Fixtures.temporaryDirectory("cli-missing")
        let out = CapturedOutput(), err = CapturedOutput()
        let missing = dir.appendingPathComponent("nope.ply").path
        #expect(CommandRunner.run(["info", missing], stdout: out, stderr: err) == 66)
        #expect(err.text.hasPrefix("error: io: cannot open"))
        #expect(err.text.contains(missing))
    }

    @Test func exitCodesFollowTheErrorKind() {
        #expect(ExitCode.forInputError(.tooLarge) == .tooLarge)
        #expect(ExitCode.forInputError(.io) == .noInput)
        #expect(ExitCode.forInputError(.truncated) == .dataError)
        #expect(ExitCode.forInputError(.badMagic) == .dataError)
        #expect(ExitCode.forInputError(.unsupported) == .dataError)
        #expect(Set(ExitCode.allCases.map(\.rawValue)).count == ExitCode.allCases.count)
    }
}
