import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import Testing
import TestSupport

/// A real glTF tile (an SPZ-compressed Cesium-ion export with a node matrix) and the same data
/// converted to PLY render alike from the same camera (formats-gltf.md 12.6, 13): the glTF path
/// flattens the node transform and converts LUF to the render frame; the PLY path writes the
/// flattened scene in PLY's RDF frame and reads it back as any PLY.
@Suite struct GLTFRenderParityTests {
    static func renderFrame(_ scene: SplatScene) {
        FrameDecision.decide(for: scene).apply(to: scene)
    }

    @Test func gltfTileRendersLikeItsPLYConversion() throws {
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb"))
        #expect(decoded.scene.declaredFrame == .luf)
        let gltf = try SceneTransform.flatten(decoded.scene)
        #expect(gltf !== decoded.scene, "the tile's node matrix is not the identity")

        // "convert IN OUT.ply": the decided frame (LUF) to PLY's RDF, then PLY bytes.
        let plySource = try SceneTransform.flatten(try SplatFile.decode(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb")).scene)
        FrameDecision(sourceFrame: .luf, reason: .fileDeclaration, renderFrame: .rdf).apply(to: plySource)
        let ply = PLYEncoder.encode(plySource)
        let fromPLY = try ply.withUnsafeBytes { try SplatFile.decode(InputBytes(copying: $0, name: "tile.ply")).scene }
        #expect(fromPLY.count == gltf.count && fromPLY.conventionalFrame == .rdf)

        Self.renderFrame(gltf)
        Self.renderFrame(fromPLY)
        let width = 320, height = 240, fov = 50.0
        let framing = AutoFramer.frame(gltf, width: width, height: height, fovYDegrees: fov)
        let camera = framing.camera(azimuthDegrees: AutoFramer.defaultAzimuthDegrees,
                                    elevationDegrees: AutoFramer.defaultElevationDegrees, fovYDegrees: fov)
        let settings = RenderSettings(width: width, height: height, background: SIMD3(0, 0, 0))
        let a = try Renderer(scene: gltf).render(camera: camera, settings: settings)
        let b = try Renderer(scene: fromPLY).render(camera: camera, settings: settings)
        let report = ImageComparison.compare(a.image, b.image)
        print("glTF tile vs PLY: \(report), coverage \(a.coverage)")
        #expect(a.coverage > 0.15, "a real render, not an empty frame")
        #expect(report.sameShape)
        #expect(report.psnr >= 60, "\(report)")
    }

    /// Flattening is what puts the tile right side up: without it the Z-up payload lies on its side.
    @Test func flatteningChangesTheRender() throws {
        let decoded = try SplatFile.decode(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb"))
        let unflattened = try SplatFile.decode(path: Fixtures.corpusFile("gltf/flywave-aerial-tile1_2.glb")).scene
        let flat = try SceneTransform.flatten(decoded.scene)
        // The node's R_x(−90°) maps the payload's thin z extent to y (13.3): after flattening the
        // tile is thin along y, the glTF up axis.
        func spread(_ values: UnsafeMutableBufferPointer<Float>) -> Float {
            let sorted = values.sorted()
            return sorted[sorted.count * 99 / 100] - sorted[sorted.count / 100]
        }
        #expect(spread(flat.y) < spread(flat.x) && spread(flat.y) < spread(flat.z))
        #expect(spread(unflattened.z) < spread(unflattened.x) && spread(unflattened.z) < spread(unflattened.y))
    }
}
