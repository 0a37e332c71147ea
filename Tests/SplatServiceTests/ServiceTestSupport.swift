import SplatCore
import Foundation
import SplatImage
import SplatRender
import TestSupport
import Testing
@testable import SplatService

/// Scenes and measurements the service suites share.
enum ServiceFixtures {
    /// 4,721 splats, SH degree 3, stored RDF: a real scene that fills a good part of the auto view.
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    /// 152,746 splats, SH degree 0: the "normal file" a small ceiling refuses.
    static let biker = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path

    /// Mean alpha of an RGBA image, 0…1.
    static func alphaCoverage(_ image: ImageBuffer) -> Double {
        guard image.channels == 4, image.width * image.height > 0 else { return 1 }
        var sum = 0
        for i in stride(from: 3, to: image.pixels.count, by: 4) { sum += Int(image.pixels[i]) }
        return Double(sum) / Double(255 * image.width * image.height)
    }

    /// The `width`×`height` block of `image` at (x, y).
    static func crop(_ image: ImageBuffer, x: Int, y: Int, width: Int, height: Int) -> ImageBuffer {
        let c = image.channels
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * c)
        for row in y..<(y + height) {
            let start = (row * image.width + x) * c
            pixels += image.pixels[start..<(start + width * c)]
        }
        return ImageBuffer(width: width, height: height, channels: c, pixels: pixels)
    }

    /// Every regular file under `folder`, relative paths, sorted.
    static func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var out: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: folder.appendingPathComponent(next).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { out.append(next) }
        }
        return out.sorted()
    }

    /// Runs a `turntable` job on the fruit that writes only a contact sheet with `plan`, checks
    /// that it succeeded, and reads the sheet back.
    static func renderSheet(_ plan: SheetPlan, settings: RenderSettings, tag: String) throws -> (sheet: ImageBuffer, report: RunReport) {
        let path = try Fixtures.temporaryDirectory(tag).appendingPathComponent("sheet.png").path
        let report = SceneJob(command: "turntable", input: .path(fruit), view: ViewRequest(settings: settings),
                              sheet: SheetOutput(path: path, plan: plan)).run().report
        #expect(report.succeeded, "\(String(describing: report.error))")
        return (try PNGReader.read(path: path), report)
    }

    /// Every view of `plan` on `orbit`, rendered alone from the fruit straight through the
    /// renderer and shrunk as a sheet tile is: what each tile of the sheet must equal.
    static func tilesRenderedAlone(_ plan: SheetPlan, on orbit: Turntable, settings: RenderSettings) throws -> [ImageBuffer] {
        let renderer = Renderer(scene: try SceneLoader.load(.path(fruit)).scene)
        return try plan.cameras(on: orbit).map { try renderer.render(camera: $0, settings: settings).image.downscaled(by: plan.downscale) }
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
