import Testing
import SplatCore
import SplatImage
import SplatService
@testable import SplatServe

@Suite struct SceneRequestTests {
    static func request(_ route: SceneRoute, _ query: [(String, String)], settings: SceneServiceSettings = SceneServiceSettings()) throws(SplatError) -> SceneRequest {
        try SceneRequest(route: route, query: query.map { (name: $0.0, value: $0.1) }, settings: settings)
    }

    static func failure(_ route: SceneRoute, _ query: [(String, String)]) -> SplatError? {
        do throws(SplatError) {
            _ = try request(route, query)
            return nil
        } catch {
            return error
        }
    }

    @Test func parametersAreTheOptionsWithTheCommandLinesValues() throws {
        let r = try Self.request(.render, [("resolution", "64x48"), ("background", "0.2,0.2,0.25"), ("flip", "1"),
                                           ("camera-fov", "50"), ("source-frame", "RDF"), ("output", "webp"), ("quality", "80")])
        #expect(r.options.resolution(.resolution)! == (64, 48))
        #expect(r.options.vector(.background) == SIMD3(0.2, 0.2, 0.25))
        #expect(r.load.frame.flip)
        #expect(r.load.frame.sourceFrame == CoordinateSystem(name: "RDF"))
        #expect(r.options.viewRequest.camera.fovYDegrees == 50)
        #expect(r.imageFormat == .webp)
        #expect(r.encoding.quality == 80)
        // A repeated parameter keeps its last value, as a repeated option does; 0 turns a flag off.
        let repeated = try Self.request(.render, [("resolution", "8x8"), ("resolution", "16x16"), ("flip", "true"), ("flip", "0")])
        #expect(repeated.options.resolution(.resolution)! == (16, 16))
        #expect(!repeated.load.frame.flip)
        #expect(try Self.request(.render, []).imageFormat == .png)
    }

    @Test func theTimeoutIsTheRequestsOwn() throws {
        #expect(try Self.request(.render, [("timeout", "2.5")]).timeout == .milliseconds(2500))
        #expect(try Self.request(.info, [("timeout", "0.25")]).timeout == .milliseconds(250))
        #expect(try Self.request(.render, []).timeout == nil)
    }

    @Test func requestsMayOnlyTightenTheServersLimits() throws {
        var limits = DecodeLimits(maxDecodedBytes: 1 << 20, maxShDegree: 2)
        limits.maxInputBytes = 5 << 20
        let settings = SceneServiceSettings(limits: limits)
        let looser = try Self.request(.render, [("max-decoded-bytes", "1G"), ("max-sh-degree", "3")], settings: settings)
        #expect(looser.load.limits.maxDecodedBytes == 1 << 20)
        #expect(looser.load.limits.maxShDegree == 2)
        #expect(looser.load.limits.maxInputBytes == 5 << 20)
        let tighter = try Self.request(.render, [("max-decoded-bytes", "1K"), ("max-sh-degree", "0"), ("strict", "yes")], settings: settings)
        #expect(tighter.load.limits.maxDecodedBytes == 1024)
        #expect(tighter.load.limits.maxShDegree == 0)
        #expect(tighter.load.limits.strict)
        #expect(try Self.request(.render, [], settings: settings).load.limits == limits)
    }

    @Test func eachRouteTakesItsOwnOutputsOptionsAndNoneTakesPathsOrServerSettings() {
        let render = Set(SceneRoute.render.parameterNames), sheet = Set(SceneRoute.sheet.parameterNames)
        let animation = Set(SceneRoute.animation.parameterNames), info = Set(SceneRoute.info.parameterNames)
        #expect(render.isSuperset(of: ["resolution", "background", "camera-pos", "camera-target", "camera-up", "camera-fov", "sh-degree",
                                       "antialiased", "source-frame", "flip", "max-sh-degree", "max-decoded-bytes", "format", "timeout", "output"]))
        #expect(sheet.isSuperset(of: ["sheet-views", "sheet-elevations", "sheet-downscale", "resolution", "elevation", "output"]))
        #expect(sheet.isDisjoint(with: ["frames", "frame-ms", "animation-quality", "animation-effort"]))
        #expect(animation.isSuperset(of: ["frames", "elevation", "frame-ms", "animation-quality", "animation-effort", "resolution"]))
        #expect(animation.isDisjoint(with: ["sheet-views", "output", "quality"]))
        #expect(info.isSuperset(of: ["bounds", "format", "timeout", "source-frame"]))
        for route in SceneRoute.allCases {
            let names = Set(route.parameterNames)
            #expect(names.isDisjoint(with: ["out", "report", "cameras", "threads", "memory-budget", "max-input-bytes", "progress", "json",
                                            "verbose", "quiet", "help", "out-format", "sheet", "animation"]), "\(route)")
        }
    }

    @Test func badParametersNameTheirField() {
        let typo = Self.failure(.render, [("resolutoin", "8x8")])
        #expect(typo?.kind == .invalidArgument && typo?.field == "resolutoin")
        #expect(typo?.message.hasSuffix("did you mean resolution?") == true)
        let notHere = Self.failure(.render, [("frames", "4")])
        #expect(notHere?.message.contains("does not apply to POST /v1/render") == true)
        let value = Self.failure(.sheet, [("sheet-views", "0")])
        #expect(value?.field == "sheet-views")
        #expect(value?.message.hasPrefix("invalid value '0' for sheet-views:") == true)
        #expect(Self.failure(.render, [("flip", "2")])?.field == "flip")
        #expect(Self.failure(.sheet, [("quality", "50")])?.field == "quality")
        #expect(Self.failure(.render, [("output", "gif")])?.field == "output")
    }

    @Test func theJobsAreTheCommandLinesJobs() throws {
        let sheet = try Self.request(.sheet, [("sheet-views", "3"), ("output", "jpeg"), ("resolution", "32x32")])
        let job = sheet.sceneJob(input: .path("x"))
        #expect(job.sheet?.plan.views == 3 && job.image == nil && job.animation == nil)
        #expect(job.holdsOutputs)
        #expect(sheet.imageFormat == .jpeg)
        let animation = try Self.request(.animation, [("frames", "5"), ("frame-ms", "40")]).sceneJob(input: .path("x"))
        #expect(animation.orbit.frames == 5 && animation.animation?.options.frameDurationMs == 40)
        let render = try Self.request(.render, []).sceneJob(input: .path("x"))
        #expect(render.image == .caller && render.memoryBudget == ServeDefaults.memoryBudgetBytes)
    }
}
