import Foundation
import Testing
import SplatCore
import SplatImage
import SplatRender
import SplatService
import TestSupport
@testable import SplatRenderCLI

/// `render --azimuth/--elevation/--distance/--zoom` and `--padding`: the single view on the
/// orbit, and the framing's empty band, as the command line gives them.
@Suite struct OrbitControlTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let small = ["--resolution", "48x40", "--sh-degree", "0"]

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func report(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test(arguments: [(100.0, 45.0), (-60.0, -25.0)])
    func renderAtAnglesIsTurntableFrameZero(_ angles: (Double, Double)) throws {
        let dir = try Fixtures.temporaryDirectory("cli-orbit-angles")
        let (azimuth, elevation) = (String(angles.0), String(angles.1))
        let frames = dir.appendingPathComponent("frames").path
        let single = dir.appendingPathComponent("single.png").path
        let turntable = runCLI(["turntable", Self.fruit, "--out", frames, "--frames", "1", "--azimuth", azimuth,
                                "--elevation", elevation] + Self.small)
        #expect(turntable.status == 0, "\(turntable.err.text)")
        let render = runCLI([Self.fruit, "--out", single, "--azimuth", azimuth, "--elevation", elevation] + Self.small)
        #expect(render.status == 0, "\(render.err.text)")
        #expect(try Self.bytes(single) == Self.bytes(frames + "/frame_000.png"))
        // And it is another picture than the automatic view.
        let plain = dir.appendingPathComponent("plain.png").path
        #expect(runCLI([Self.fruit, "--out", plain] + Self.small).status == 0)
        #expect(try Self.bytes(plain) != Self.bytes(single))
    }

    @Test func distanceAndZoomMoveTheCameraOrTheLens() throws {
        let dir = try Fixtures.temporaryDirectory("cli-orbit-distance")
        func camera(_ extra: [String]) throws -> [String: Any] {
            let path = dir.appendingPathComponent("r\(extra.joined()).json").path
            let run = runCLI([Self.fruit, "--out", dir.appendingPathComponent("i.png").path, "--report", path] + Self.small + extra)
            #expect(run.status == 0, "\(run.err.text)")
            return try #require(try Self.report(path)["camera"] as? [String: Any])
        }
        func eye(_ c: [String: Any]) throws -> SIMD3<Double> {
            let v = try #require(c["position"] as? [Double]); return SIMD3(v[0], v[1], v[2])
        }
        func target(_ c: [String: Any]) throws -> SIMD3<Double> {
            let v = try #require(c["target"] as? [Double]); return SIMD3(v[0], v[1], v[2])
        }
        let auto = try camera([])
        let far = try camera(["--distance", "2"])
        let zoomed = try camera(["--zoom", "2"])
        let offset = try eye(auto) - target(auto), farOffset = try eye(far) - target(far)
        // Twice as far along the same direction, looking at the same centre.
        #expect(try target(far) == target(auto))
        #expect(((farOffset - 2 * offset) * (farOffset - 2 * offset)).sum().squareRoot() < 1e-9 * (offset * offset).sum().squareRoot())
        // The zoom keeps the camera and halves tan(fov/2).
        #expect(try eye(zoomed) == eye(auto))
        let fov = try #require(auto["fov_y_degrees"] as? Double), zoomedFov = try #require(zoomed["fov_y_degrees"] as? Double)
        #expect(abs(tan(zoomedFov * .pi / 360) - tan(fov * .pi / 360) / 2) < 1e-12)
        // An explicit camera position still wins over the orbit controls.
        let placed = try camera(["--camera-pos", "0,0,5", "--distance", "3", "--azimuth", "90"])
        #expect(try eye(placed) == SIMD3(0, 0, 5))
        // Out-of-range values are usage errors.
        #expect(runCLI([Self.fruit, "--out", dir.appendingPathComponent("x.png").path, "--distance", "0"]).status == 64)
        #expect(runCLI([Self.fruit, "--out", dir.appendingPathComponent("x.png").path, "--padding", "0.5"]).status == 64)
    }

    /// A larger padding leaves a wider empty band: the subject's margin grows with it.
    @Test func paddingWidensTheEmptyBand() throws {
        let dir = try Fixtures.temporaryDirectory("cli-padding")
        var margins: [Int] = []
        for padding in ["0", "0.05", "0.25"] {
            let path = dir.appendingPathComponent("p\(padding).png").path
            let run = runCLI([Self.fruit, "--out", path, "--resolution", "96x96", "--sh-degree", "0", "--padding", padding])
            #expect(run.status == 0, "\(run.err.text)")
            let margin = try #require(SubjectMargin.measure(try PNGReader.read(path: path)))
            margins.append(margin.minimum)
        }
        #expect(margins[1] >= 5, "\(margins)")   // ⌈0.05 · 96 − ½⌉ = 5 px of band, the subject outside it
        #expect(margins[2] >= 24, "\(margins)")  // ⌈0.25 · 96 − ½⌉ = 24
        #expect(margins[0] < margins[1] && margins[1] < margins[2], "\(margins)")
    }
}
