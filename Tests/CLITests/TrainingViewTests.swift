import Foundation
import Testing
import SplatCore
import SplatImage
import TestSupport
@testable import SplatRenderCLI

/// `render --view training:K|training:auto`: a `cameras.json` made from a known camera (given in
/// the PLY's stored RDF frame) renders what the same camera renders as `--camera-pos/target/up/fov`
/// in the render frame (RUB: x, −y, −z of the stored values).
@Suite struct TrainingViewTests {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let size = ["--resolution", "96x72", "--sh-degree", "0", "--background", "0,0,0"]

    /// A look-at camera in the render frame (RUB) written as an INRIA camera in RDF: rotation
    /// columns right, down, forward; fy from the vertical field of view at the training height.
    static func cameraJSON(id: Int, position p: SIMD3<Double>, target: SIMD3<Double>, fovY: Double,
                           width: Int, height: Int) -> [String: Any] {
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
        func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
        }
        let forward = unit(target - p)
        let right = unit(cross(forward, SIMD3(0, 1, 0)))
        let down = -cross(right, forward)
        let toStored = SIMD3<Double>(1, -1, -1)  // RUB → RDF
        let columns = [right, down, forward].map { $0 * toStored }
        let rows = (0..<3).map { r in columns.map { $0[r] } }
        let fy = Double(height) / (2 * tan(fovY * .pi / 360))
        let stored = p * toStored
        return ["id": id, "img_name": "frame\(id)", "width": width, "height": height,
                "position": [stored.x, stored.y, stored.z], "rotation": rows, "fx": fy, "fy": fy]
    }

    static func image(_ path: String) throws -> ImageBuffer { try PNGReader.read(path: path) }

    @Test func trainingCameraRendersLikeTheSameCameraGivenByOptions() throws {
        let dir = try Fixtures.temporaryDirectory("cli-training-view")
        let position = SIMD3<Double>(0.9, 0.35, 1.3), target = SIMD3<Double>(0.75, -0.1, 2.14)
        let cameras = [Self.cameraJSON(id: 3, position: position, target: target, fovY: 40, width: 640, height: 480),
                       Self.cameraJSON(id: 7, position: SIMD3(0.2, 0.1, 1.5), target: target, fovY: 55, width: 640, height: 480)]
        let camerasPath = dir.appendingPathComponent("cameras.json").path
        try JSONSerialization.data(withJSONObject: cameras).write(to: URL(fileURLWithPath: camerasPath))

        let viewed = dir.appendingPathComponent("viewed.png").path
        let run = runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:3", "--out", viewed] + Self.size)
        #expect(run.status == 0, "\(run.err.text)")
        let given = dir.appendingPathComponent("given.png").path
        let direct = runCLI([Self.fruit, "--cameras", camerasPath, "--out", given,
                             "--camera-pos", "\(position.x),\(position.y),\(position.z)",
                             "--camera-target", "\(target.x),\(target.y),\(target.z)",
                             "--camera-up", "0,1,0", "--camera-fov", "40"] + Self.size)
        #expect(direct.status == 0, "\(direct.err.text)")
        let comparison = ImageComparison.compare(try Self.image(viewed), try Self.image(given))
        #expect(comparison.psnr >= 60, "\(comparison)")
        // Another camera is another picture.
        let other = dir.appendingPathComponent("other.png").path
        #expect(runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:7", "--out", other] + Self.size).status == 0)
        #expect(ImageComparison.compare(try Self.image(other), try Self.image(given)).psnr < 30)
    }

    @Test func automaticPicksTheTypicalCameraAndMistakesAreUsageErrors() throws {
        let dir = try Fixtures.temporaryDirectory("cli-training-auto")
        let target = SIMD3<Double>(0.75, -0.1, 2.14)
        // Three cameras on one side and one outlier behind: auto takes the middle of the three.
        let positions: [SIMD3<Double>] = [SIMD3(0.6, 0.2, 1.2), SIMD3(0.75, 0.2, 1.15), SIMD3(0.9, 0.2, 1.2), SIMD3(0.75, 0.2, 3.2)]
        let cameras = positions.enumerated().map { Self.cameraJSON(id: $0.offset, position: $0.element, target: target,
                                                                   fovY: 45, width: 640, height: 480) }
        let camerasPath = dir.appendingPathComponent("cameras.json").path
        try JSONSerialization.data(withJSONObject: cameras).write(to: URL(fileURLWithPath: camerasPath))
        let auto = dir.appendingPathComponent("auto.png").path, one = dir.appendingPathComponent("one.png").path
        #expect(runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:auto", "--out", auto] + Self.size).status == 0)
        #expect(runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:1", "--out", one] + Self.size).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: auto)) == Data(contentsOf: URL(fileURLWithPath: one)))

        let out = dir.appendingPathComponent("x.png").path
        #expect(runCLI([Self.fruit, "--view", "training:1", "--out", out]).status == 64)                        // no --cameras
        #expect(runCLI([Self.fruit, "--cameras", camerasPath, "--view", "front", "--out", out]).status == 64)
        #expect(runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:1", "--camera-pos", "0,0,3", "--out", out]).status == 64)
        let missing = runCLI([Self.fruit, "--cameras", camerasPath, "--view", "training:42", "--out", out])
        #expect(missing.status == 64, "\(missing.err.text)")
        #expect(missing.err.text.contains("no training camera with id 42"))
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
